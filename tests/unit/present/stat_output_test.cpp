// SPDX-License-Identifier: Apache-2.0
#include "perfmon/stat_output.hpp"

#include <gtest/gtest.h>
#include <linux/perf_event.h>

#include <nlohmann/json.hpp>
#include <sstream>

namespace perfmon {
namespace {

StatRow row(std::string name, std::uint32_t type, std::uint64_t config, double scaled, std::string unit = "") {
  StatRow r;
  r.event = std::move(name);
  r.type = type;
  r.config = config;
  r.scaled = scaled;
  r.unit = std::move(unit);
  r.value = {static_cast<std::uint64_t>(scaled), 1000, 1000, 0};
  return r;
}

std::vector<StatRow> sample_rows() {
  std::vector<StatRow> rows;
  rows.push_back(row("task-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK, 2.0, "msec"));  // 2 ms
  rows.push_back(row("page-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS, 50));
  rows.push_back(row("cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, 4e6));
  rows.push_back(row("instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, 8e6));
  rows.push_back(row("branches", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS, 1e6));
  rows.push_back(row("branch-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES, 1e4));
  StatRow unsupported = row("cache-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES, 0);
  unsupported.state = StatRow::State::NotSupported;
  rows.push_back(unsupported);
  StatRow multiplexed = row("bus-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BUS_CYCLES, 300);
  multiplexed.value = {100, 300, 100, 0};
  rows.push_back(multiplexed);
  compute_metrics(rows, 4e6);  // 4 ms elapsed
  return rows;
}

TEST(StatMetrics, DerivedFiguresAsPerfComputesThem) {
  auto rows = sample_rows();
  EXPECT_NEAR(*rows[0].metric, 0.5, 1e-9);  // CPUs utilized: 2 ms of 4 ms
  EXPECT_EQ(rows[0].metric_unit, "CPUs utilized");
  EXPECT_NEAR(*rows[1].metric, 25.0, 1e-9);  // 50 per 2 ms = 25 K/sec
  EXPECT_EQ(rows[1].metric_unit, "K/sec");
  EXPECT_NEAR(*rows[2].metric, 2.0, 1e-9);  // 4e6 cycles in 2 ms = 2 GHz
  EXPECT_EQ(rows[2].metric_unit, "GHz");
  EXPECT_NEAR(*rows[3].metric, 2.0, 1e-9);  // insn per cycle
  EXPECT_EQ(rows[3].metric_unit, "insn per cycle");
  EXPECT_NEAR(*rows[5].metric, 1.0, 1e-9);  // 1% of all branches
  EXPECT_NE(rows[5].metric_unit.find("of all branches"), std::string::npos);
  EXPECT_FALSE(rows[6].metric);  // not supported: no metric
}

TEST(StatOutput, CsvFollowsPerfFieldOrder) {
  auto rows = sample_rows();
  StatReport report;
  report.rows = rows;
  std::string csv = format_stat_report(report, StatFormat::Csv, ";");
  std::istringstream lines(csv);
  std::string line;
  std::vector<std::string> all;
  while (std::getline(lines, line)) all.push_back(line);
  ASSERT_EQ(all.size(), rows.size());
  EXPECT_EQ(all[0], "2.00;msec;task-clock;1000;100.00;0.500;CPUs utilized");
  EXPECT_EQ(all[1], "50;;page-faults;1000;100.00;25.000;K/sec");
  EXPECT_EQ(all[6], "<not supported>;;cache-misses;0;100.00;;");
  EXPECT_EQ(all[7].substr(0, 26), "300;;bus-cycles;100;33.33;");
}

TEST(StatOutput, CsvWithRepeatsHasTheVarianceField) {
  StatReport report;
  report.rows = {row("page-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS, 48)};
  report.rows[0].rel_stddev = 0.7;
  EXPECT_EQ(format_stat_report(report, StatFormat::Csv, ","), "48,,page-faults,1000,100.00,0.70%,,\n");
}

TEST(StatOutput, JsonLinesParseWithPerfKeys) {
  StatReport report;
  report.rows = sample_rows();
  std::istringstream lines(format_stat_report(report, StatFormat::Json, ","));
  std::string line;
  int count = 0;
  while (std::getline(lines, line)) {
    auto object = nlohmann::json::parse(line);
    for (const char* key :
         {"counter-value", "unit", "event", "event-runtime", "pcnt-running", "metric-value", "metric-unit"})
      EXPECT_TRUE(object.contains(key)) << key << " missing in " << line;
    ++count;
  }
  EXPECT_EQ(count, 8);
  auto first = nlohmann::json::parse(format_stat_report(report, StatFormat::Json, ",")
                                         .substr(0, format_stat_report(report, StatFormat::Json, ",").find('\n')));
  EXPECT_EQ(first["event"], "task-clock");
  EXPECT_EQ(first["counter-value"], "2.000000");
  EXPECT_EQ(first["unit"], "msec");
}

TEST(StatOutput, UncountedAndUnschedulableAreNeverZero) {
  StatReport report;
  StatRow idle = row("cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, 0);
  idle.state = StatRow::State::NotCounted;
  idle.value = {0, 1000, 0, 0};
  StatRow pinned = row("instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, 0);
  pinned.state = StatRow::State::NotScheduled;
  report.rows = {idle, pinned};
  compute_metrics(report.rows, 1e6);
  EXPECT_EQ(format_stat_report(report, StatFormat::Csv, ","),
            "<not counted>,,cycles,0,100.00,,\n<not scheduled>,,instructions,0,100.00,,\n");
  std::string table = format_stat_report(report, StatFormat::Table, ",");
  EXPECT_NE(table.find("     <not counted>      cycles"), std::string::npos) << table;
  EXPECT_NE(table.find("   <not scheduled>      instructions"), std::string::npos) << table;
}

TEST(StatOutput, JsonEscapesWhatItQuotes) {
  StatReport report;
  report.rows = {row("a\"b\\c\n\x01", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS, 1)};
  std::string json = format_stat_report(report, StatFormat::Json);
  EXPECT_NE(json.find("\"event\":\"a\\\"b\\\\c\\n\\u0001\""), std::string::npos) << json;
  EXPECT_EQ(nlohmann::json::parse(json)["event"], "a\"b\\c\n\x01");
}

TEST(StatOutput, TableHasHeaderRowsScalingAndFooter) {
  StatReport report;
  report.rows = sample_rows();
  report.target = "'true'";
  report.elapsed_ns = 4e6;
  report.user_s = 0.001;
  report.sys_s = 0.002;
  report.footnotes = {"<not supported> cache-misses: no PMU."};
  std::string text = format_stat_report(report, StatFormat::Table, ",");
  EXPECT_NE(text.find(" Performance counter stats for 'true':"), std::string::npos);
  EXPECT_NE(text.find("              2.00 msec task-clock"), std::string::npos) << text;
  EXPECT_NE(text.find("   <not supported>      cache-misses"), std::string::npos) << text;
  EXPECT_NE(text.find("(33.33%)"), std::string::npos) << text;
  EXPECT_NE(text.find("4,000,000      cycles"), std::string::npos) << text;
  EXPECT_NE(text.find("0.004000000 seconds time elapsed"), std::string::npos);
  EXPECT_NE(text.find("seconds user"), std::string::npos);
  EXPECT_NE(text.find("<not supported> cache-misses: no PMU."), std::string::npos);
}

TEST(StatOutput, IntervalRowsCarryTheTimestamp) {
  auto rows = sample_rows();
  std::string csv = format_stat_interval(rows, 1.5, StatFormat::Csv, ",", true);
  EXPECT_EQ(csv.substr(0, 17), "     1.500000000,");
  std::string json = format_stat_interval(rows, 1.5, StatFormat::Json, ",", true);
  EXPECT_DOUBLE_EQ(nlohmann::json::parse(json.substr(0, json.find('\n')))["interval"].get<double>(), 1.5);
  std::string table = format_stat_interval(rows, 1.5, StatFormat::Table, ",", true);
  EXPECT_EQ(table.rfind("#           time", 0), 0u);
}

}  // namespace
}  // namespace perfmon
