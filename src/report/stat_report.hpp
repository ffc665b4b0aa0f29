// The figures `perfmon stat` prints, and their three shapes: perf's table, CSV (-x) and JSON (-j).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "perfmon/counter.hpp"

namespace perfmon::report {

struct StatRow {
  std::string prefix;      // "" aggregated, "CPU0" with -A, "comm-tid" with --per-thread
  std::string event;       // display name
  std::string total_name;  // hybrid per-PMU rows: the name of the row that sums them
  std::uint32_t type = 0;
  std::uint64_t config = 0;
  enum class State { Counted, NotCounted, NotSupported, NotScheduled } state = State::Counted;
  CounterValue value;                // raw counts and times (summed over repeats)
  double scaled = 0;                 // mean over repeats, extrapolated, times the sysfs scale
  double scale = 1.0;                // sysfs scale of the event
  std::string unit;                  // sysfs unit; "msec" for the clocks
  std::optional<double> rel_stddev;  // percent, with -r
  // Filled by compute_metrics().
  std::optional<double> metric;
  std::string metric_unit;
};

struct StatReport {
  std::vector<StatRow> rows;
  std::string target;  // "'ls -l'", "process id '42'", "'system wide'"
  int runs = 1;
  double elapsed_ns = 0;  // mean wall time
  std::optional<double> elapsed_rel_stddev;
  double elapsed_stddev_ns = 0;
  std::optional<double> user_s, sys_s;  // for a workload
  std::vector<std::string> footnotes;   // unsupported events and their reason, notes
};

enum class StatFormat { Table, Csv, Json };

// Wall-clock ns of the clocks that are printed as msec (task-clock, cpu-clock).
bool is_clock_event(std::uint32_t type, std::uint64_t config);

// perf's derived figures: CPUs utilized, GHz, insn per cycle, miss ratios, rates per second.
void compute_metrics(std::vector<StatRow>& rows, double elapsed_ns);

// Hybrid CPUs: after the per-PMU rows of an event (cpu_core/instructions/, cpu_atom/instructions/),
// a row that sums them under the event's own name, as perf prints both.
void append_hybrid_totals(std::vector<StatRow>& rows);

// The whole report as perf prints it at the end of a run.
std::string format_report(const StatReport& report, StatFormat format, const std::string& separator);
// One interval block (-I): rows prefixed with the time since the start, in seconds.
std::string format_interval(const std::vector<StatRow>& rows, double timestamp_s, StatFormat format,
                            const std::string& separator, bool print_header);

// Mean and relative standard deviation of the mean (percent), as perf stat -r reports them.
struct RunStats {
  double mean = 0;
  double rel_stddev = 0;
  double stddev_of_mean = 0;
};
RunStats run_stats(const std::vector<double>& samples);

// JSON string escaping.
std::string json_quote(const std::string& text);

}  // namespace perfmon::report
