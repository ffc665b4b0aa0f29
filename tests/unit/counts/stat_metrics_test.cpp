// SPDX-License-Identifier: Apache-2.0
// perf stat -M's figures from stat rows: each part of a measurement (prefix, region) computed from
// its own rows, a metric on the row of its first event and the next ones of that row on lines of
// their own, clocks in nanoseconds, duration_time in seconds, ":u" names, estimates' errors, and a
// sentence for each metric without a value; then the three shapes printing those lines.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "perfmon/metric_table.hpp"
#include "perfmon/stat.hpp"
#include "perfmon/stat_output.hpp"

namespace perfmon {
namespace {

constexpr const char* kTable = R"json([
  {"MetricName": "per_fault", "MetricExpr": "syscalls / faults", "MetricGroup": "G"},
  {"MetricName": "fault_share", "MetricExpr": "faults / (faults + syscalls)", "ScaleUnit": "100%",
   "MetricGroup": "G", "MetricThreshold": "fault_share > 0.5"},
  {"MetricName": "faults_per_second", "MetricExpr": "faults * 1e9 / task\\-clock", "ScaleUnit": "1/sec"},
  {"MetricName": "busy", "MetricExpr": "task\\-clock / (duration_time * 1e9)", "ScaleUnit": "1CPUs"},
  {"MetricName": "cycles_per_fault", "MetricExpr": "cycles / faults"}
])json";

StatRow counted(std::string event, double value, std::string prefix = "") {
  StatRow row;
  row.event = std::move(event);
  row.prefix = std::move(prefix);
  row.scaled = value;
  row.value.raw = row.value.enabled = row.value.running = 1;
  return row;
}

StatRow task_clock_ms(double msec, std::string prefix = "") {
  StatRow row = counted("task-clock", msec, std::move(prefix));
  row.type = PERF_TYPE_SOFTWARE;
  row.config = PERF_COUNT_SW_TASK_CLOCK;
  row.unit = "msec";
  return row;
}

TEST(StatMetrics, EachPartFromItsOwnRowsOnItsFirstEvent) {
  const MetricTable table = MetricTable::from_json(kTable, "test");
  const MetricSet set(table, table.select("G,faults_per_second"), {});
  std::vector<StatRow> rows = {counted("syscalls", 300, "CPU0"), counted("faults", 100, "CPU0"),
                               task_clock_ms(2, "CPU0"),         counted("syscalls:u", 50, "CPU1"),
                               counted("faults", 150, "CPU1"),   task_clock_ms(4, "CPU1")};
  // Every metric has its value; CPU1's fault share (150 of 200) is past its threshold, said once.
  EXPECT_EQ(add_metrics(rows, table, set, 1e7),
            std::vector<std::string>{"The metric fault_share is past its threshold (fault_share > 0.5)."});
  ASSERT_EQ(rows.size(), 8u);
  // CPU0: per_fault on syscalls (its first event); fault_share's first event is faults; the rate on
  // faults too, after it, on a line of its own.
  EXPECT_EQ(rows[0].event, "syscalls");
  EXPECT_DOUBLE_EQ(*rows[0].metric, 3.0);
  EXPECT_EQ(rows[0].metric_unit, "per_fault");
  EXPECT_EQ(rows[1].event, "faults");
  EXPECT_DOUBLE_EQ(*rows[1].metric, 25.0);  // 100 / 400, in percent
  EXPECT_EQ(rows[1].metric_unit, "%  fault_share");
  EXPECT_EQ(rows[1].metric_over_threshold, std::optional<bool>(false));
  EXPECT_TRUE(rows[2].metric_only);
  EXPECT_EQ(rows[2].prefix, "CPU0");
  EXPECT_DOUBLE_EQ(*rows[2].metric, 100 * 1e9 / 2e6);  // the clock in nanoseconds
  EXPECT_EQ(rows[2].metric_unit, "/sec  faults_per_second");
  EXPECT_EQ(rows[3].event, "task-clock");
  EXPECT_FALSE(rows[3].metric);  // no metric of the set is on it
  // CPU1: the session's ":u" name is the event's.
  EXPECT_DOUBLE_EQ(*rows[4].metric, 50.0 / 150.0);
  EXPECT_DOUBLE_EQ(*rows[5].metric, 75.0);
  EXPECT_EQ(rows[5].metric_over_threshold, std::optional<bool>(true));
  EXPECT_TRUE(rows[6].metric_only);
  EXPECT_EQ(rows[6].prefix, "CPU1");
  EXPECT_DOUBLE_EQ(*rows[6].metric, 150 * 1e9 / 4e6);
}

TEST(StatMetrics, ToolEventsAndErrors) {
  const MetricTable table = MetricTable::from_json(kTable, "test");
  const MetricSet set(table, table.select("busy,per_fault"), {});
  std::vector<StatRow> rows = {task_clock_ms(3), counted("syscalls", 300), counted("faults", 100)};
  rows[1].error_percent = 2;  // an estimate: 300 +- 6
  EXPECT_TRUE(add_metrics(rows, table, set, 6e6).empty());
  EXPECT_DOUBLE_EQ(*rows[0].metric, 0.5);  // 3 ms of CPU in 6 ms
  EXPECT_EQ(rows[0].metric_unit, "CPUs  busy");
  EXPECT_FALSE(rows[0].metric_error);  // exact
  EXPECT_DOUBLE_EQ(*rows[1].metric, 3);
  EXPECT_NEAR(*rows[1].metric_error, 0.06, 1e-12);
  // In a region, the run's wall time is not the region's: its time is the region's own, its
  // counters' time enabled there (4 ms); without it, no value, and the sentence says why.
  std::vector<StatRow> region = {task_clock_ms(3)};
  region[0].region = "solve";
  region[0].value.enabled = 4'000'000;
  const MetricSet busy(table, table.select("busy"), {});
  EXPECT_TRUE(add_metrics(region, table, busy, 6e6).empty());
  EXPECT_DOUBLE_EQ(*region[0].metric, 0.75);
  region[0].value.enabled = 0;
  region[0].metric.reset();
  EXPECT_EQ(add_metrics(region, table, busy, 6e6),
            std::vector<std::string>{"The metric busy has no value here: duration_time is not known here."});
  EXPECT_FALSE(region[0].metric);
}

TEST(StatMetrics, AMetricWithoutAValueSaysWhichEventItLacks) {
  const MetricTable table = MetricTable::from_json(kTable, "test");
  const MetricSet set(table, table.select("cycles_per_fault,per_fault"), {});
  StatRow cycles = counted("cycles", 0);
  cycles.state = StatRow::State::NotSupported;
  std::vector<StatRow> rows = {cycles, counted("faults", 0, ""), counted("syscalls", 5)};
  EXPECT_EQ(add_metrics(rows, table, set, 1e6),
            (std::vector<std::string>{"The metric cycles_per_fault has no value here: cycles is not supported here.",
                                      "The metric per_fault has no value here: its expression has no value for these "
                                      "counts (a division by zero)."}));
  for (const StatRow& row : rows) EXPECT_FALSE(row.metric) << row.event;
}

TEST(StatMetrics, TheShapesPrintAMetricLineAlone) {
  StatRow line;
  line.metric_only = true;
  line.metric = 12.5;
  line.metric_unit = "/sec  faults_per_second";
  line.metric_over_threshold = true;
  StatReport report;
  report.rows = {counted("faults", 100), line};
  report.target = "'x'";
  const std::string table = format_stat_report(report, StatFormat::Table);
  // Blank under the counts' columns (18 + 1 + 4 + 1 + 32), then the metric as on a row.
  EXPECT_NE(table.find("\n" + std::string(56, ' ') + " #   12.500 /sec  faults_per_second\n"), std::string::npos)
      << table;
  const std::string csv = format_stat_report(report, StatFormat::Csv);
  EXPECT_NE(csv.find("\n,,,,,12.500,/sec  faults_per_second\n"), std::string::npos) << csv;
  const std::string json = format_stat_report(report, StatFormat::Json);
  EXPECT_NE(json.find("\n{\"metric-value\":12.5,\"metric-unit\":\"/sec  faults_per_second\",\"metric-threshold\":"
                      "\"bad\"}\n"),
            std::string::npos)
      << json;
}

// perf stat --metric-only: a column a metric, a line a part, in each shape.
TEST(StatMetrics, MetricOnlyPrintsAColumnAMetricAndALineAPart) {
  const MetricTable table = MetricTable::from_json(kTable, "test");
  const MetricSet set(table, table.select("per_fault,faults_per_second"), {});
  std::vector<StatRow> rows = {counted("syscalls", 300, "CPU0"), counted("faults", 100, "CPU0"),
                               task_clock_ms(2, "CPU0"),         counted("syscalls", 50, "CPU1"),
                               counted("faults", 25, "CPU1"),    task_clock_ms(5, "CPU1")};
  add_metrics(rows, table, set, 1e7);
  StatReport report;
  report.rows = rows;
  report.target = "'x'";
  report.metric_only = true;
  EXPECT_EQ(format_stat_report(report, StatFormat::Csv, ";"),
            ";per_fault;/sec  faults_per_second\n"
            "CPU0;3.000;50000.000\n"
            "CPU1;2.000;5000.000\n");
  EXPECT_EQ(format_stat_report(report, StatFormat::Json),
            "{\"cpu\":\"0\",\"per_fault\":\"3.000\",\"/sec  faults_per_second\":\"50000.000\"}\n"
            "{\"cpu\":\"1\",\"per_fault\":\"2.000\",\"/sec  faults_per_second\":\"5000.000\"}\n");
  const std::string text = format_stat_report(report, StatFormat::Table);
  // The part's label, then each column right-aligned under its heading (at least 10 wide).
  EXPECT_NE(text.find("\n       per_fault  /sec  faults_per_second\n"
                      "CPU0       3.000                50000.000\n"
                      "CPU1       2.000                 5000.000\n"),
            std::string::npos)
      << text;
  EXPECT_EQ(format_stat_interval(rows, 1.5, StatFormat::Csv, ",", true, true),
            "time,,per_fault,/sec  faults_per_second\n"
            "     1.500000000,CPU0,3.000,50000.000\n"
            "     1.500000000,CPU1,2.000,5000.000\n");
}

}  // namespace
}  // namespace perfmon
