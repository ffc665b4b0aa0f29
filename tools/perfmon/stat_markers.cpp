// SPDX-License-Identifier: Apache-2.0
#include "stat_markers.hpp"

#include <stdlib.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <map>
#include <thread>

#include "perfmon/error.hpp"
#include "perfmon/marker_results.hpp"
#include "perfmon/printable.hpp"

namespace perfmon::cli {

namespace {

constexpr const char* kMissing =
    "the program wrote no marker results: mark its regions with perfmon::ProgramRegion (perfmon/program_regions.hpp), "
    "or with likwid's Marker API built with -DLIKWID_PERFMON and linked with -lperfmon-likwid (pkg-config "
    "libperfmon-likwid) and ended with LIKWID_MARKER_CLOSE, and let it exit normally (docs/regions.md).";

}  // namespace

StatMarkers::StatMarkers(bool on, const std::vector<std::vector<std::string>>& groups) {
  if (!on) return;
  dir_.emplace("the marker results");
  std::string lists;
  for (std::size_t g = 0; g < groups.size(); ++g) {
    if (g > 0) lists += '|';
    for (std::size_t l = 0; l < groups[g].size(); ++l) lists += (l > 0 ? "," : "") + groups[g][l];
  }
  const unsigned cpus = std::max(1u, std::thread::hardware_concurrency());
  setenv("LIKWID_EVENTS", lists.c_str(), 1);
  setenv("LIKWID_FILEPATH", (dir_->path() / "likwid.txt").c_str(), 1);
  setenv("LIKWID_MODE", "perf_event", 1);
  setenv("LIKWID_THREADS", ("0-" + std::to_string(cpus - 1)).c_str(), 1);
  setenv("PERFMON_MARKERS_JSON", (dir_->path() / "markers.json").c_str(), 1);
  setenv("PERFMON_MARKERS_EVENTS", lists.c_str(), 1);  // perfmon's own regions (perfmon/program_regions.hpp)
}

StatMarkers::~StatMarkers() {
  if (!dir_) return;
  for (const char* name : {"LIKWID_EVENTS", "LIKWID_FILEPATH", "LIKWID_MODE", "LIKWID_THREADS", "PERFMON_MARKERS_JSON",
                           "PERFMON_MARKERS_EVENTS"})
    unsetenv(name);
}

std::optional<MarkerResults> StatMarkers::results(std::vector<std::string>& notes) const {
  if (!dir_) return std::nullopt;
  try {
    return read_marker_results(dir_->path() / "markers.json");
  } catch (const Error& error) {
    // None at all: the program was not built with the markers; anything else is said as it is.
    notes.push_back(error.kind() == ErrorKind::System && error.errnum() == ENOENT ? kMissing : error.what());
    return std::nullopt;
  }
}

std::vector<MarkedReport> StatMarkers::reports(const std::vector<EventGroup>& events,
                                               std::vector<std::string>& notes) const {
  std::vector<MarkedReport> out;
  const std::optional<MarkerResults> read = results(notes);
  if (!read) return out;
  const MarkerResults& results = *read;
  const std::vector<std::vector<std::string>>& groups = results.groups;
  // One report per region and group, in the order first met; a row per thread and event, then
  // their sums.
  std::map<std::pair<std::string, std::size_t>, std::size_t> report_of;
  std::vector<std::vector<Reading>> threads;           // per report
  std::vector<std::vector<std::string>> thread_lines;  // per report: each thread's calls and time
  std::vector<std::uint64_t> calls;
  std::vector<double> seconds, longest;
  std::vector<std::string> tag_of;
  for (const MarkedRegionResult& region : results.regions) {
    const std::string& tag = region.tag;
    const std::size_t group = region.group;
    auto [found, added] = report_of.try_emplace({tag, group}, out.size());
    if (added) {
      out.push_back({group, {}});
      StatReport& report = out.back().report;
      report.target =
          "region '" + printable(tag) + "'" + (groups.size() > 1 ? " (group " + std::to_string(group + 1) + ")" : "");
      threads.emplace_back();
      calls.push_back(0);
      seconds.push_back(0);
      longest.push_back(0);
      tag_of.push_back(tag);
      thread_lines.emplace_back();
    }
    const std::size_t r = found->second;
    const std::vector<std::string> none;
    threads[r].push_back(marked_region_reading(region, group < groups.size() ? groups[group] : none, events));
    char line[160];
    std::snprintf(line, sizeof line, "thread%zu (tid %d, last on CPU %d): %llu calls, %.6f s", region.thread,
                  static_cast<int>(region.tid), region.cpu, static_cast<unsigned long long>(region.count),
                  region.seconds);
    thread_lines[r].push_back(line);
    calls[r] += region.count;
    seconds[r] += region.seconds;
    longest[r] = std::max(longest[r], region.seconds);
  }
  for (std::size_t r = 0; r < out.size(); ++r) {
    StatReport& report = out[r].report;
    for (const Reading& reading : threads[r])
      for (const StatRow& row : stat_rows(reading)) report.rows.push_back(row);
    // With several threads, likwid's statistics over them: the sum, the least, the most and the
    // mean of each event (the least and the most as the threads counted them, with their times).
    if (threads[r].size() > 1) {
      Reading sum = threads[r].front(), least = sum, most = sum;
      for (std::size_t t = 1; t < threads[r].size(); ++t)
        for (std::size_t e = 0; e < sum.events.size() && e < threads[r][t].events.size(); ++e) {
          const CounterValue& value = threads[r][t].events[e].value;
          sum.events[e].value += value;
          if (value.scaled() < least.events[e].value.scaled()) least.events[e].value = value;
          if (value.scaled() > most.events[e].value.scaled()) most.events[e].value = value;
        }
      Reading mean = sum;
      const std::uint64_t n = threads[r].size();
      for (ReadingEvent& event : mean.events)
        event.value = {event.value.raw / n, event.value.enabled / n, event.value.running / n, 0};
      for (auto [statistic, label] : {std::pair{&sum, "all"}, {&least, "min"}, {&most, "max"}, {&mean, "mean"}}) {
        for (ReadingEvent& event : statistic->events) event.label = label;
        for (const StatRow& row : stat_rows(*statistic)) report.rows.push_back(row);
      }
    }
    for (StatRow& row : report.rows) row.region = tag_of[r];
    report.elapsed_ns = longest[r] * 1e9;
    char text[160];
    std::snprintf(text, sizeof text, "%llu calls in %zu %s, %.6f s in the region summed over them",
                  static_cast<unsigned long long>(calls[r]), threads[r].size(),
                  threads[r].size() == 1 ? "thread" : "threads", seconds[r]);
    report.footnotes.push_back(text);
    if (threads[r].size() > 1)
      report.footnotes.insert(report.footnotes.end(), thread_lines[r].begin(), thread_lines[r].end());
    compute_metrics(report.rows, 0);
    // A rate of the least or the most of each event mixes threads: shown for threads and sums only.
    for (StatRow& row : report.rows)
      if (row.prefix == "min" || row.prefix == "max" || row.prefix == "mean") {
        row.metric.reset();
        row.metric_unit.clear();
      }
  }
  return out;
}

}  // namespace perfmon::cli
