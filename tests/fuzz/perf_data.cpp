// SPDX-License-Identifier: Apache-2.0
// perf.data files, whole: the header, attrs and ids, feature sections (EVENT_DESC, HOSTNAME) and
// every record of the data section decoded by its event, summed up as perfmon report does (user
// stack copies unwound; and without stacks, as its table alone) and shown in each of its shapes;
// and each event's heaviest function annotated as perfmon annotate does.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "perfmon/annotation.hpp"
#include "perfmon/annotation_output.hpp"
#include "perfmon/error.hpp"
#include "perfmon/perf_data.hpp"
#include "perfmon/profile.hpp"
#include "perfmon/report_output.hpp"
#include "perfmon/symbols.hpp"

namespace {
volatile std::size_t sink;
// The files' symbol tables and the kernel's (/proc/kallsyms), read once for every input: read for
// each, they were most of the target's time (a seed recording names libc, whose symbols are
// thousands). Files are named by their own symbol tables: no separate debug file (libc's is 30 MB).
std::shared_ptr<perfmon::SymbolTables> symbols;

// Every record of one reading handed to each handler: the file decoded once for the three that
// sum it (the reader's work was half of an input's, three times over).
class EveryHandler : public perfmon::SampleHandler {
 public:
  explicit EveryHandler(std::vector<perfmon::SampleHandler*> handlers) : handlers_(std::move(handlers)) {}
  void sample(std::size_t event, const perfmon::Sample& sample) override {
    for (perfmon::SampleHandler* handler : handlers_) handler->sample(event, sample);
  }
  void record(const perf_event_header& record) override {
    for (perfmon::SampleHandler* handler : handlers_) handler->record(record);
  }
  void context(const perf_event_header& record) override {
    for (perfmon::SampleHandler* handler : handlers_) handler->context(record);
  }

 private:
  std::vector<perfmon::SampleHandler*> handlers_;
};
}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  symbols = std::make_shared<perfmon::SymbolTables>("/nonexistent");
  std::uint64_t into = 0;
  sink = symbols->function_in_kernel(~std::uint64_t{0} << 40, into) != nullptr;
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    const perfmon::PerfDataReader file(std::string(reinterpret_cast<const char*>(data), size), "input");
    std::vector<std::string> names;
    for (const perfmon::PerfDataEvent& event : file.events()) names.push_back(event.name);
    perfmon::Profile profile(names, {.debug_root = "/nonexistent"}, symbols);
    for (std::size_t event = 0; event < names.size(); ++event)  // stack copies unwound, as perfmon report does
      if (file.events()[event].attr.sample_type & PERF_SAMPLE_STACK_USER)
        profile.unwind_user_stacks(event, file.events()[event].attr.sample_regs_user);
    // The table alone, as perfmon report builds it without -g: each sample's leaf, no tree.
    perfmon::Profile leaves(names, {.stacks = false, .debug_root = "/nonexistent"}, symbols);
    perfmon::AnnotationSamples samples(names, symbols);
    EveryHandler every({&profile, &leaves, &samples});
    file.read(every);
    perfmon::ReportOptions options;
    options.callchains = true;
    sink = perfmon::format_report_table(profile, options).size() + perfmon::format_report_json(profile, options).size();
    for (std::size_t event = 0; event < names.size(); ++event)
      sink = perfmon::format_folded_stacks(profile, event).size() +
             perfmon::format_flame_graph(profile, event, "fuzz").size();
    sink = perfmon::format_report_table(leaves, {}).size();
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
