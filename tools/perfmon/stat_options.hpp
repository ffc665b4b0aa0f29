// SPDX-License-Identifier: Apache-2.0
// perfmon stat's options: what the command line says, parsed and checked against each other
// before anything runs (a wrong combination is a usage error, 129).
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "event_arguments.hpp"
#include "options.hpp"
#include "perfmon/cache_geometry.hpp"
#include "perfmon/stat.hpp"
#include "targets.hpp"

namespace perfmon::cli {

struct StatOptions {
  EventArguments events;
  TargetChoice target;
  bool no_aggr = false;
  StatBreakdown per_place = StatBreakdown::Total;  // --per-socket, --per-die, --per-core, --per-node
  bool per_thread = false;
  long interval_ms = 0;
  long interval_count = 0;       // --interval-count: stop after that many -I intervals (0: no limit)
  long timeout_ms = 0;           // --timeout: stop after that long (0: none)
  bool quiet = false;            // -q: no counts printed
  bool null_run = false;         // -n: nothing counted, the command timed
  long detail = 0;               // -d, -dd, -ddd: perf's detailed events added, up to level 3
  std::string metrics;           // -M: metrics and groups of metrics, comma-separated
  std::string metrics_dir;       // --metrics-dir: perf's pmu-events for this architecture
  bool metric_only = false;      // --metric-only: the metrics alone, a column each
  bool metric_no_group = false;  // --metric-no-group: each metric's events counted alone
  long topdown_level = 0;        // --topdown (1), --td-level N: the top-down metrics of that level
  // --likwid-group, likwid-perfctr's -g NAME: likwid's performance groups (several: with --markers,
  // one at a time, switched by the program's LIKWID_MARKER_SWITCH)
  std::vector<std::string> likwid_groups;
  bool summary = false;     // --summary: with -I, the whole run's counts at the end too
  bool sync_first = false;  // -S: sync(2) before counting, as perf stat --sync
  bool run_table = false;   // --table: with -r, each run's wall time
  long repeat = 1;
  std::optional<std::string> separator;
  bool json = false;
  std::string output;
  bool inherit = true;
  bool verbose = false;
  std::vector<std::string> sets;         // --sets: one event list per set
  std::optional<std::string> switching;  // --switch: a time, or EVENT:PERIOD
  bool strict = false;
  bool calibrate = false;
  bool passes = false;
  bool plan = false;
  bool emulate = false;
  CacheHierarchy caches;  // --I1, --D1, --LL: the emulated CPU's caches, where given
  long delay_ms = 0;      // -D: -1 waits for "enable" on the control channel
  std::string control;    // --control: fifo:CTL[,ACK] or fd:CTL[,ACK]
  bool markers = false;   // --markers: the regions the program marks (likwid Marker API)
  std::vector<std::string> command;
};

// The options of perfmon stat, writing into `o`.
std::vector<Option> stat_options(StatOptions& o);
// "10ms", "500us", "2s", "100000ns"; a bare number is milliseconds. None for anything else.
std::optional<std::chrono::nanoseconds> parse_duration(std::string_view text);
// --switch: a time on the PMU (default 10 ms), or EVENT:COUNT. Throws UsageError.
SetSwitching parse_switch(const std::optional<std::string>& text);
// The options checked against each other. Throws UsageError.
// The command line with likwid-perfctr's `-g GROUP` as --likwid-group=GROUP: perf's -g takes no
// word (--group), so the word after it, where it names one of this CPU's likwid groups and no
// program on PATH, is taken as that group (before any "--").
std::vector<std::string> with_likwid_group(std::span<char* const> args);
void validate(const StatOptions& o);

}  // namespace perfmon::cli
