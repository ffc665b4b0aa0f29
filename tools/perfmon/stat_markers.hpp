// SPDX-License-Identifier: Apache-2.0
// perfmon stat --markers: a program's own regions (likwid's Marker API, through libperfmon-likwid)
// counted per thread. Before the command starts, the environment its marker library reads is set
// (LIKWID_EVENTS, LIKWID_FILEPATH, LIKWID_MODE, LIKWID_THREADS as likwid-perfctr -m sets them,
// and PERFMON_MARKERS_JSON for perfmon's fuller results); after it, one report per region: a row
// per thread and event, and their sums.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "perfmon/event.hpp"
#include "perfmon/stat.hpp"

namespace perfmon::cli {

class StatMarkers {
 public:
  // `events`: the -e lists, one likwid group. Nothing is set where `on` is false.
  StatMarkers(bool on, const std::vector<std::string>& events);
  ~StatMarkers();
  StatMarkers(const StatMarkers&) = delete;
  StatMarkers& operator=(const StatMarkers&) = delete;

  // The regions' reports, or a note saying why there are none. `events`: the -e events as parsed,
  // which name the first group's values (their units and scales).
  std::vector<StatReport> reports(const std::vector<EventGroup>& events, std::vector<std::string>& notes) const;

 private:
  std::filesystem::path dir_;  // empty: off
};

}  // namespace perfmon::cli
