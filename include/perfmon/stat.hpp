// SPDX-License-Identifier: Apache-2.0
// perfmon: the figures `perf stat` prints, computed from a Reading (reading.hpp) — a row per event (or
// per event and location), perf's derived metrics, and statistics over repeated runs and passes.
// How they are printed is stat_output.hpp's business.
#pragma once

#include <sys/resource.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "perfmon/counter.hpp"
#include "perfmon/location.hpp"
#include "perfmon/metric_table.hpp"
#include "perfmon/reading.hpp"

namespace perfmon {

struct StatRow {
  std::string prefix;  // "" summed, "CPU0" per CPU, "comm-tid" per thread, "set0", "pass1"
  // What the prefix names when it is not a CPU or thread: "set" (event sets), "pass" (--passes);
  // JSON's key for it, with the number as its value.
  std::string prefix_kind;
  int aggregated_cpus = 0;  // per socket, die, core or node: the CPUs summed ("S0-D0-C1" prefix); else 0
  // The named region whose counts the row shows (regions.hpp; perfmon stat --control), or "".
  std::string region;
  std::string event;       // the name shown: as written, ":u" added where the session had to
  std::string total_name;  // hybrid per-PMU rows: the name of the row that sums them
  std::uint32_t type = 0;
  std::uint64_t config = 0;
  enum class State { Counted, NotCounted, NotSupported, NotScheduled } state = State::Counted;
  CounterValue value;                // raw counts and times
  double scaled = 0;                 // extrapolated, times the sysfs scale (mean over runs)
  double scale = 1.0;                // sysfs scale of the event
  std::string unit;                  // sysfs unit; "msec" for the clocks
  std::optional<double> rel_stddev;  // percent, over repeated runs
  // Percent: the standard error of a value extrapolated from part of the time (multiplexed by the
  // kernel, or in an event set), from the event's rate in each slice it ran (estimate.hpp).
  std::optional<double> error_percent;
  // Set by compute_metrics(), or by add_metrics() (perf stat -M).
  std::optional<double> metric;
  std::string metric_unit;
  std::optional<double> metric_error;         // add_metrics(): the standard error, where inputs were estimated
  std::optional<bool> metric_over_threshold;  // add_metrics(): past the metric's MetricThreshold
  // A line that carries a metric alone (perf's: a metric beside no count of its own): the metrics
  // after the first of those whose first event is the row before.
  bool metric_only = false;
  // Counted on an emulated CPU (emulated.hpp), not by the host's PMU: every output shape says so.
  bool emulated = false;
};

struct StatReport {
  std::vector<StatRow> rows;
  std::string target;  // "'ls -l'", "process id '42'", "'system wide'"
  int runs = 1;
  double elapsed_ns = 0;  // mean wall time
  std::optional<double> elapsed_rel_stddev;
  double elapsed_stddev_ns = 0;
  std::vector<double> run_elapsed_ns;   // each run's wall time, in order
  bool run_table = false;               // the table lists them before the mean (perf stat -r N --table)
  bool metric_only = false;             // perf stat --metric-only: the rows' metrics alone, a column each
  std::optional<double> user_s, sys_s;  // a command's CPU time
  std::vector<std::string> footnotes;   // unsupported events and their reason, notes
};

// Summed over all locations, or one row per location (CPU or thread), or per CPU's place (perf
// stat's --per-socket, --per-die, --per-core, --per-node: the CPUs of each summed, their number in
// StatRow::aggregated_cpus; sockets, dies and cores from sysfs' topology, nodes from its NUMA nodes).
enum class StatBreakdown { Total, PerLocation, PerSocket, PerDie, PerCore, PerNode };

// A label per location, for per-location rows: "CPU3", or "comm-tid" for a thread (read now, while
// the thread exists).
std::vector<std::string> location_labels(const std::vector<Location>& locations);

// The rows of a reading: state, scaled value and unit of each event, prefixed with its set or
// pass; summed over the locations, or one row per location (where the reading keeps them apart)
// with `labels` as prefixes; hybrid per-PMU rows are followed by their sum. A row extrapolated from
// part of the time carries its standard error where the reading has an estimate.
std::vector<StatRow> stat_rows(const Reading& reading, StatBreakdown breakdown = StatBreakdown::Total,
                               const std::vector<std::string>& labels = {});
// The same for the change since `previous` (updated to the reading's values): one interval's rows.
std::vector<StatRow> stat_interval_rows(const Reading& reading, std::vector<CounterValue>& previous,
                                        StatBreakdown breakdown = StatBreakdown::Total,
                                        const std::vector<std::string>& labels = {});
// The lines under the table: how it was counted (the reading's summary), unsupported events
// grouped by reason, and what the measurement did on the user's behalf.
std::vector<std::string> stat_footnotes(const Reading& reading);

// perf's derived figures: CPUs utilized, GHz, insn per cycle, miss ratios, rates per second.
void compute_metrics(std::vector<StatRow>& rows, double elapsed_ns);

// perf stat -M: the metrics of `set` (over `table`) from the rows of each part of the measurement
// (rows alike in prefix and region): each metric put on the row of its first event, in place of
// that row's own metric, the next ones of that row on lines of their own after it (metric_only).
// An event's value is its count extrapolated as the row shows it, its error the row's estimate's;
// perf's tool events are the run's: duration_time `elapsed_ns` (in seconds, as in perf's
// expressions; in a region, the region's own, its rows' time enabled: a thread's time in it, as
// likwid's `time`), user_time and system_time the command's CPU times. Returns, once each, a sentence
// for each metric that has no value, naming the event it lacks and why, and for each past its
// threshold ("The metric IPC is past its threshold (IPC < 1).").
std::vector<std::string> add_metrics(std::vector<StatRow>& rows, const MetricTable& table, const MetricSet& set,
                                     double elapsed_ns, std::optional<double> user_s = std::nullopt,
                                     std::optional<double> sys_s = std::nullopt);

// Mean and relative standard deviation of the mean (percent), as perf stat -r reports them.
struct RunStats {
  double mean = 0;
  double rel_stddev = 0;
  double stddev_of_mean = 0;
};
RunStats run_stats(const std::vector<double>& samples);

// One run of a repeated measurement.
struct StatRun {
  std::vector<StatRow> rows;
  double elapsed_ns = 0;
  std::optional<rusage> usage;  // a command's resources
};

// Passes of one command (perfmon stat --passes): for each event counted in more than one pass,
// one line with its mean and the spread between passes, which shows how alike the runs were.
std::vector<std::string> pass_spread_lines(const std::vector<StatRow>& rows);

// A warning for each event whose count in an empty program's rows (the cost of starting and ending
// any program: exec, the dynamic loader, exit) is over `fraction` of its count in `rows`.
std::vector<std::string> small_count_warnings(const std::vector<StatRow>& empty, const std::vector<StatRow>& rows,
                                              double fraction = 0.05);

// The report of one or more runs of the same events: the rows' means and relative standard
// deviations, the mean wall time, a command's CPU time, and the metrics.
StatReport summarise_runs(const std::vector<StatRun>& runs, std::string target, std::vector<std::string> footnotes);

}  // namespace perfmon
