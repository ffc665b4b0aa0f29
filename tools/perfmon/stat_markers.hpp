// SPDX-License-Identifier: Apache-2.0
// perfmon stat --markers: a program's own regions (likwid's Marker API, through libperfmon-likwid)
// counted per thread. Before the command starts, the environment its marker library reads is set
// (LIKWID_EVENTS, LIKWID_FILEPATH, LIKWID_MODE, LIKWID_THREADS as likwid-perfctr -m sets them,
// and PERFMON_MARKERS_JSON for perfmon's fuller results); after it, one report per region: a row
// per thread and event, and their sums.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "perfmon/event.hpp"
#include "perfmon/marker_results.hpp"
#include "perfmon/stat.hpp"
#include "temporary_directory.hpp"

namespace perfmon::cli {

// A region's report in one group of events.
struct MarkedReport {
  std::size_t group = 0;
  StatReport report;
};

class StatMarkers {
 public:
  // `groups`: likwid's groups of events, one at a time, each its event lists in perf's syntax.
  // Nothing is set where `on` is false.
  StatMarkers(bool on, const std::vector<std::vector<std::string>>& groups);
  ~StatMarkers();
  StatMarkers(const StatMarkers&) = delete;
  StatMarkers& operator=(const StatMarkers&) = delete;

  // The program's marker results, or a note saying why there are none.
  std::optional<MarkerResults> results(std::vector<std::string>& notes) const;
  // The regions' reports, each in its group, or a note saying why there are none. `events`: the
  // groups' events as parsed, which name their values (their units and scales).
  std::vector<MarkedReport> reports(const std::vector<EventGroup>& events, std::vector<std::string>& notes) const;

 private:
  std::optional<TemporaryDirectory> dir_;  // none: off
};

}  // namespace perfmon::cli
