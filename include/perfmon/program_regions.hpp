// SPDX-License-Identifier: Apache-2.0
// perfmon: a program's own named regions, for perfmon stat --markers (a table each) and perfmon
// bench --markers (a benchmark each), as likwid's Marker API gives them to a C program
// (libperfmon-likwid), without another library. They count where perfmon runs the program: the
// events are those of PERFMON_MARKERS_EVENTS (event lists in perf's syntax, groups separated by
// '|'; the first group is counted) and the results go to PERFMON_MARKERS_JSON as the process exits
// (marker_results.hpp), both set by perfmon; elsewhere a region costs a check of one flag. Each
// thread's regions are its own, summed over its threads by perfmon.
//
//   void solve() {
//     perfmon::ProgramRegion region("solve");  // counted until the end of the scope
//     ...
//   }
//   perfmon::program_region_start("parse"); parse(); perfmon::program_region_stop("parse");
//
// A counter that cannot be opened is said once on standard error, as likwid's library says it, and
// the program goes on uncounted.
#pragma once

#include <string_view>

namespace perfmon {

void program_region_start(std::string_view name) noexcept;
void program_region_stop(std::string_view name) noexcept;
// Whether perfmon runs the program and counts its regions.
bool program_regions_counted() noexcept;

// A region from its construction to the end of its scope. `name` must outlive it (a literal).
class ProgramRegion {
 public:
  explicit ProgramRegion(std::string_view name) noexcept : name_(name) { program_region_start(name_); }
  ~ProgramRegion() { program_region_stop(name_); }
  ProgramRegion(const ProgramRegion&) = delete;
  ProgramRegion& operator=(const ProgramRegion&) = delete;

 private:
  std::string_view name_;
};

}  // namespace perfmon
