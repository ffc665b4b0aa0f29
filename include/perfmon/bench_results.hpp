// SPDX-License-Identifier: Apache-2.0
// perfmon: benchmark results as a CI gate keeps and compares them (perfmon bench). Per benchmark,
// per measure (an event's count in one run: instructions, branches...), the value and its range
// over the runs; written and read as Bencher's Metric Format (BMF JSON,
// https://bencher.dev/docs/reference/bencher-metric-format), which Bencher and other tools take as
// it is. Two sets compared measure by measure: a growth past its threshold is a regression. The
// results and the comparison for people (a table), for a CI job's summary (GitHub-flavoured
// Markdown) and for its test report (JUnit XML).
//
//   perfmon::BenchResults base = perfmon::read_bench_results(text_of_base, "base.json");
//   std::vector<perfmon::BenchChange> changes = perfmon::compare_bench_results(base, now, {});
//   bool failed = std::ranges::any_of(changes, &perfmon::BenchChange::regression);
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace perfmon {

struct BenchMeasure {
  std::string name;             // an event's name: "instructions", "branch-misses"
  double value = 0;             // the mean over the runs
  double lower = 0, upper = 0;  // the least and the most
};

struct BenchResult {
  std::string benchmark;  // "gzip -9 data", a region's name
  std::vector<BenchMeasure> measures;
};
using BenchResults = std::vector<BenchResult>;

// BMF: {"benchmark": {"measure": {"value": v, "lower_value": l, "upper_value": u}}}, in order.
std::string bench_results_json(const BenchResults& results);
// Reads BMF back (lower_value and upper_value optional, as BMF has them). Throws perfmon::Error
// (InvalidArgument) naming `source` and what is wrong: not JSON, not BMF's shape, a value that is
// not a number.
BenchResults read_bench_results(std::string_view json, std::string_view source);
// The same from a file: a regular file only (never a FIFO or a device). Throws perfmon::Error
// saying why it cannot be read, or what is wrong in it.
BenchResults read_bench_results_file(const std::string& path);

// How much a measure may grow, in percent, before it is a regression: one for every measure, and
// some measures their own.
struct BenchThresholds {
  double percent = 0.1;
  std::vector<std::pair<std::string, double>> per_measure;
  double for_measure(std::string_view measure) const;
};
// "0.05%" (every measure), "instructions=0.05%,branch-misses=1%" (those measures; the others 0.1%),
// or both ("0.5%,instructions=0.01%"); the '%' may be left out. Throws perfmon::Error
// (InvalidArgument) for anything else, or a negative percent.
BenchThresholds parse_bench_thresholds(std::string_view text);

// One measure of one benchmark, base against now.
struct BenchChange {
  std::string benchmark, measure;
  std::optional<double> base, now;  // none: the benchmark or measure is not on that side
  std::optional<double> percent;    // (now - base) / base, in percent; none where not both, or base 0 and now not
  double threshold = 0;             // percent
  bool regression = false;          // grew past the threshold (from 0: any growth)
  bool improvement = false;         // shrank by more than the threshold
};
// Every measure of both sides, in `now`'s order, then what only `base` has.
std::vector<BenchChange> compare_bench_results(const BenchResults& base, const BenchResults& now,
                                               const BenchThresholds& thresholds);

// The results as a table: a line per benchmark and measure, the value and its spread over the runs
// (the most less the least: 0 on the emulated CPU).
std::string bench_results_table(const BenchResults& results);
// The comparison as a table: base, now, change, and what it is ("regression", "improvement",
// "new", "gone").
std::string bench_changes_table(const std::vector<BenchChange>& changes);
// Where a measure changed, by function (perfmon bench --explain): each change's benchmark is a
// function, its values the function's counts; a line each, in the order given, with the change
// as a count and in percent.
std::string bench_functions_table(const std::vector<BenchChange>& functions);
// The same in GitHub-flavoured Markdown, under a heading that says how many regressions.
std::string bench_changes_markdown(const std::vector<BenchChange>& changes);
// One sentence naming each measure that grew past its threshold, by how much ("instructions of
// 'gzip' +0.120% (threshold 0.1%)"); "" where none did.
std::string bench_regressions(const std::vector<BenchChange>& changes);
// JUnit XML: a test case per benchmark, failed where one of its measures is a regression (the
// message says which and by how much), its measures in its output.
std::string bench_junit(const BenchResults& results, const std::vector<BenchChange>& changes);

}  // namespace perfmon
