// SPDX-License-Identifier: Apache-2.0
// perfmon: regions a program marks in its own code, counted per thread — the model of likwid's
// Marker API (compat/liblikwid) and of PAPI's high-level API. Each thread that marks a region gets
// its own counters on its first call, counting from then on; a region's start and stop read them,
// and the difference is added to the region's sums for that thread. Regions of different names
// may nest and overlap freely. Event groups (likwid's) take turns: one is counted at a time, and
// next_group() moves every thread to the next.
//
//   perfmon::MarkedRegions regions({"task-clock,syscalls:sys_enter_getppid"});
//   regions.start("solve");   // in any thread
//   solve();
//   regions.stop("solve");
//   for (const perfmon::MarkedRegionResult& r : regions.results()) ...
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "perfmon/counter.hpp"
#include "perfmon/event.hpp"
#include "perfmon/reading.hpp"

namespace perfmon {

struct MarkedRegionResult {
  std::string tag;
  std::size_t group = 0;
  pid_t tid = 0;
  std::size_t thread = 0;            // the thread's index, in the order threads first marked a region
  int cpu = -1;                      // where the thread last started the region
  std::uint64_t count = 0;           // stops
  double seconds = 0;                // between starts and stops, summed
  std::vector<CounterValue> values;  // per event of the group: raw, enabled, running, summed
  bool emulated = false;             // counted on perfmon's emulated CPU (emulated.hpp), not the PMU
};

// A region's sums in one thread as a Reading, for every report: one event a value, named by
// `names` (its group's events as written; "?" past their end), the event of `known` of that name
// where there is one (its attr, unit and scale), labelled by the thread ("thread2").
Reading marked_region_reading(const MarkedRegionResult& region, const std::vector<std::string>& names,
                              const std::vector<EventGroup>& known);

class MarkedRegions {
 public:
  // One event list (perf syntax) per group. Throws perfmon::Error for an event this machine does
  // not know; an event it cannot count is kept, and never counted.
  explicit MarkedRegions(const std::vector<std::string>& groups);
  ~MarkedRegions();
  MarkedRegions(const MarkedRegions&) = delete;
  MarkedRegions& operator=(const MarkedRegions&) = delete;

  enum class Status {
    Done,
    AlreadyStarted,  // start of a region the thread has started: its start is taken again
    NotStarted,      // stop of a region the thread has not started; reset of one it never met
    Running,         // reset of a region that is started
    NoCounters,      // the thread's counters could not be opened: errors() says why
  };
  // The calling thread's counters opened and the region known, so that the first start costs what
  // the others do.
  Status register_region(std::string_view tag);
  Status start(std::string_view tag);
  Status stop(std::string_view tag);
  // The region's sums in the active group back to zero (a stopped region).
  Status reset(std::string_view tag);
  // The calling thread's sums of the region in the active group: the events' counts (scaled
  // where multiplexed), the seconds and the stops. False where the thread never stopped it.
  bool get(std::string_view tag, std::vector<double>& values, double& seconds, std::uint64_t& count) const;

  // Every thread counts the next group (round robin) from now on; called by one thread while the
  // others are between regions.
  void next_group();
  std::size_t active_group() const noexcept;
  std::size_t group_count() const noexcept;
  // The events of a group, their names as written.
  std::vector<std::string> event_names(std::size_t group) const;

  // Every thread's regions in every group they were stopped in, threads in the order they first
  // marked, regions in the order each thread first met them.
  std::vector<MarkedRegionResult> results() const;
  // Why a thread's counters could not be opened, once per reason.
  std::vector<std::string> errors() const;

  struct State;

 private:
  std::unique_ptr<State> state_;
};

}  // namespace perfmon
