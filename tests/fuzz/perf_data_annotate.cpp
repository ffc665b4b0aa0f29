// SPDX-License-Identifier: Apache-2.0
// perf.data files as perfmon annotate reads them (perf_data reads them as perfmon report does):
// every sample counted by function and address, and each event's heaviest function annotated
// (its instructions disassembled where its file is at hand, its source lines where DWARF says
// them) and shown as text and JSON.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "fixture.hpp"
#include "perfmon/annotation.hpp"
#include "perfmon/annotation_output.hpp"
#include "perfmon/error.hpp"
#include "perfmon/perf_data.hpp"

namespace {
volatile std::size_t sink;
}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  perfmon::fuzz::recording_symbols();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    const perfmon::PerfDataReader file(std::string(reinterpret_cast<const char*>(data), size), "input");
    std::vector<std::string> names;
    for (const perfmon::PerfDataEvent& event : file.events()) names.push_back(event.name);
    perfmon::AnnotationSamples samples(names, perfmon::fuzz::recording_symbols());
    file.read(samples);
    std::vector<perfmon::Annotation> annotations;
    for (std::size_t event = 0; event < samples.events(); ++event)
      if (const auto functions = samples.functions(event); !functions.empty())
        annotations.push_back(samples.annotate(event, functions.front()));
    sink = perfmon::format_annotation_text(annotations, {}).size() +
           perfmon::format_annotation_json(annotations, {.order = perfmon::AnnotationFormat::Order::Period}).size();
  } catch (const perfmon::Error&) {
  }
  return 0;
}
