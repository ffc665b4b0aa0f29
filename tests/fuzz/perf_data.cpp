// SPDX-License-Identifier: Apache-2.0
// perf.data files, whole, as perfmon report reads them: the header, attrs and ids, feature
// sections (EVENT_DESC, HOSTNAME) and every record of the data section decoded by its event,
// summed up (user stack copies unwound; and without stacks, as its table alone) and shown in each
// of its shapes. perf_data_annotate reads the same files as perfmon annotate does: each target
// covers one command's path, so that libFuzzer's bookkeeping of what an input covers (most of an
// execution's time) is of one path at a time.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "fixture.hpp"
#include "perfmon/error.hpp"
#include "perfmon/perf_data.hpp"
#include "perfmon/profile.hpp"
#include "perfmon/report_output.hpp"

namespace {
volatile std::size_t sink;

// Every record of one reading handed to both profiles: the file decoded once for the two.
class BothProfiles : public perfmon::SampleHandler {
 public:
  BothProfiles(perfmon::Profile& with_stacks, perfmon::Profile& leaves) : handlers_{&with_stacks, &leaves} {}
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
  perfmon::SampleHandler* handlers_[2];
};
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
    const auto symbols = perfmon::fuzz::recording_symbols();
    perfmon::Profile profile(names, {.debug_root = "/nonexistent"}, symbols);
    for (std::size_t event = 0; event < names.size(); ++event)  // stack copies unwound, as perfmon report does
      if (file.events()[event].attr.sample_type & PERF_SAMPLE_STACK_USER)
        profile.unwind_user_stacks(event, file.events()[event].attr.sample_regs_user);
    // The table alone, as perfmon report builds it without -g: each sample's leaf, no tree.
    perfmon::Profile leaves(names, {.stacks = false, .debug_root = "/nonexistent"}, symbols);
    BothProfiles both(profile, leaves);
    file.read(both);
    perfmon::ReportOptions options;
    options.callchains = true;
    sink = perfmon::format_report_table(profile, options).size() + perfmon::format_report_json(profile, options).size();
    for (std::size_t event = 0; event < names.size(); ++event)
      sink = perfmon::format_folded_stacks(profile, event).size() +
             perfmon::format_flame_graph(profile, event, "fuzz").size();
    sink = perfmon::format_report_table(leaves, {}).size();
  } catch (const perfmon::Error&) {
  }
  return 0;
}
