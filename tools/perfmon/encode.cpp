// SPDX-License-Identifier: Apache-2.0
// perfmon encode: an event name to its encodings (PERFEVTSEL value, fixed counter, perf attr).
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

void print_encoding(const EventEncoding& encoding) {
  if (!encoding.architectural_name.empty())
    std::printf("event:       %s (Intel architectural: %s)\n", encoding.name.c_str(),
                encoding.architectural_name.c_str());
  else
    std::printf("event:       %s (PMU %s)\n", encoding.name.c_str(), encoding.pmu.c_str());
  if (encoding.fixed_counter)
    std::printf("counter:     fixed counter %u, IA32_FIXED_CTR%u at MSR %xH\n", *encoding.fixed_counter,
                *encoding.fixed_counter, encoding.fixed_msr.value_or(0));
  if (encoding.cpuid_ebx_bit)
    std::printf("counter:     any general-purpose counter; CPUID.0AH:EBX bit %u says whether the CPU has it\n",
                *encoding.cpuid_ebx_bit);
  if (encoding.select)
    std::printf("PERFEVTSEL:  0x%llx (%s)\n", static_cast<unsigned long long>(encoding.select->encode()),
                encoding.select->describe().c_str());
  if (!encoding.counters.empty()) std::printf("counters:    %s only\n", encoding.counters.c_str());
  print_attr(encoding.attr);
}

}  // namespace

int run_encode(std::span<char* const> args) {
  std::string model;
  std::vector<std::string> names;
  if (auto status = parse_command_line(
          args, "encode", "perfmon encode [--pmu MODEL] EVENT...  (perf or libpfm4 syntax, Intel architectural names)",
          {{0, "pmu", "model", "encode for this CPU model (libpfm4's names: skl, icl, spr, amd64_fam19h_zen3, ...)",
            [&](std::string_view v) { model = std::string(v); }}},
          names, [](const std::vector<std::string>& words) {
            if (words.empty()) throw UsageError("name at least one event, like 'perfmon encode INST_RETIRED.ANY_P:u'");
          }))
    return *status;
  try {
    CatalogPaths paths;
    paths.cpu_model = model;
    EventCatalog catalog(paths);
    for (const std::string& name : names)
      for (const EventEncoding& encoding : encode_events(catalog, name)) print_encoding(encoding);
    return 0;
  } catch (const Error& error) {
    return report_error("encode", error, 129);
  }
}

}  // namespace perfmon::cli
