// SPDX-License-Identifier: Apache-2.0
// perfmon decode: a PERFEVTSEL value back to its fields and the events it names.
#include <cstdio>
#include <string>

#include "commands.hpp"
#include "encoding_output.hpp"
#include "errors.hpp"
#include "options.hpp"
#include "perfmon/catalog.hpp"
#include "perfmon/encoding.hpp"
#include "perfmon/error.hpp"

namespace perfmon::cli {

namespace {

void print_decoding(const SelectDecoding& decoding, const std::string& model) {
  const PerfEvtSel& select = decoding.select;
  std::printf("PERFEVTSEL:  0x%llx\n", static_cast<unsigned long long>(select.encode()));
  std::printf("  event select  7:0   0x%02x\n  unit mask    15:8   0x%02x\n", select.event, select.umask);
  std::printf("  USR             16  %d\n  OS              17  %d\n  edge            18  %d\n", select.usr, select.os,
              select.edge);
  std::printf("  PC              19  %d\n  INT             20  %d\n  AnyThread       21  %d\n", select.pin_control,
              select.interrupt, select.any_thread);
  std::printf("  EN              22  %d\n  INV             23  %d\n  CMASK       31:24   0x%02x\n", select.enable,
              select.invert, select.cmask);
  std::printf("pctr word:   %s\n", decoding.pctr_word.c_str());
  for (const SelectDecoding::Name& name : decoding.names)
    std::printf("event:       %s (%s)\n", name.name.c_str(), name.origin.c_str());
  if (decoding.names.empty())
    std::printf(
        "event:       no event of %s's table has this code; 'perfmon list --pmu MODEL' shows a model's events\n",
        model.empty() ? "this CPU" : model.c_str());
  print_attr(decoding.attr);
}

}  // namespace

int run_decode(std::span<char* const> args) {
  std::vector<std::string> values;
  std::string model;
  if (auto status =
          parse_command_line(args, "decode", "perfmon decode [--pmu MODEL] VALUE...  (an IA32_PERFEVTSELx value)",
                             {{0, "pmu", "model",
                               "name the event from this model's table (libpfm4's names, or coreduo for "
                               "pmc.core); default: this machine's",
                               [&](std::string_view v) { model = std::string(v); }}},
                             values, [](const std::vector<std::string>& words) {
                               if (words.empty())
                                 throw UsageError("give a PERFEVTSEL value, like 'perfmon decode 0x4100c0'");
                             }))
    return *status;
  try {
    CatalogPaths paths;
    paths.cpu_model = model;
    EventCatalog catalog(paths);
    for (const std::string& text : values) print_decoding(decode_perfevtsel(catalog, text), model);
    return 0;
  } catch (const Error& error) {
    return report_error("decode", error, 129);
  }
}

}  // namespace perfmon::cli
