// SPDX-License-Identifier: Apache-2.0
// report --pprof: the samples in pprof's format (gzipped profile.proto), made from the records
// themselves: each sample's address and time, which a Profile drops.
#include "perfmon/pprof.hpp"
#include "perfmon/report_output.hpp"

namespace perfmon::present {

std::string pprof_shape(const Recorded& recorded, const ReportOptions& options) {
  std::vector<PprofEvent> events;
  for (auto& [name, attr] : recorded.events()) events.push_back({name, attr});
  PprofOptions pprof_options;
  pprof_options.inlined_frames = options.inlined_frames;
  pprof_options.build_ids = recorded.build_ids();
  PprofProfile pprof(std::move(events), std::move(pprof_options));
  recorded.read(pprof, [&pprof](std::size_t event, std::uint64_t registers) {
    return pprof.unwind_user_stacks(event, registers);
  });
  return pprof.encode();
}

}  // namespace perfmon::present
