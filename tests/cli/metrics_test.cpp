// SPDX-License-Identifier: Apache-2.0
// perfmon stat -M as a user runs it: the metrics' events counted (alone without -e), each value
// the formula of the counts printed beside it, in the table, JSON and intervals; a metric without a
// PMU saying which event it lacks; an unknown name refused; the emulated CPU's branch miss rate;
// perfmon list metrics and metricgroups.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <string>
#include <vector>

#include "emulated.hpp"
#include "process.hpp"

namespace perfmon::testing {
namespace {

std::vector<nlohmann::json> json_lines(const std::string& text) {
  std::vector<nlohmann::json> lines;
  for (const std::string& line : lines_of(text))
    if (!line.empty() && line.front() == '{') lines.push_back(nlohmann::json::parse(line));
  return lines;
}

const nlohmann::json* row_of(const std::vector<nlohmann::json>& rows, const std::string& event) {
  for (const nlohmann::json& row : rows)
    if (row.contains("event") && row["event"] == event) return &row;
  return nullptr;
}

TEST(CliMetrics, EachValueIsItsFormulaOfTheCountsBesideIt) {
  const Result r =
      run({PERFMON, "stat", "-j", "-M", "page_faults_per_second,cs_per_second", "--", WORKER, "touch", "1000"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::vector<nlohmann::json> rows = json_lines(r.err);
  // Without -e, the metrics' events alone.
  std::vector<std::string> events;
  for (const nlohmann::json& row : rows) events.push_back(row.value("event", ""));
  EXPECT_EQ(events, (std::vector<std::string>{"page-faults", "task-clock", "context-switches"})) << r.err;
  const nlohmann::json* faults = row_of(rows, "page-faults");
  const nlohmann::json* clock = row_of(rows, "task-clock");
  const nlohmann::json* switches = row_of(rows, "context-switches");
  ASSERT_TRUE(faults && clock && switches) << r.err;
  const double ns = std::stod(clock->at("counter-value").get<std::string>()) * 1e6;
  const double expected = std::stod(faults->at("counter-value").get<std::string>()) * 1e9 / ns;
  EXPECT_GE(std::stod(faults->at("counter-value").get<std::string>()), 1000);
  EXPECT_EQ(faults->at("metric-unit"), "/sec  page_faults_per_second");
  EXPECT_NEAR(faults->at("metric-value").get<double>(), expected, expected * 1e-5) << r.err;
  EXPECT_EQ(switches->at("metric-unit"), "/sec  cs_per_second");
  EXPECT_NEAR(switches->at("metric-value").get<double>(),
              std::stod(switches->at("counter-value").get<std::string>()) * 1e9 / ns, 1e-3)
      << r.err;
}

TEST(CliMetrics, CpusUtilizedIsTheTaskClockOverTheWallTime) {
  const Result r = run({PERFMON, "stat", "-M", "CPUs_utilized", "--", WORKER, "spin", "200"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::smatch clock, elapsed;
  ASSERT_TRUE(
      std::regex_search(r.err, clock, std::regex(R"(([\d.]+) msec task-clock +# +([\d.]+) CPUs  CPUs_utilized)")))
      << r.err;
  ASSERT_TRUE(std::regex_search(r.err, elapsed, std::regex(R"(([\d.]+) seconds time elapsed)"))) << r.err;
  // The table rounds the clock to 0.01 ms and the metric to 0.001.
  const double ms = std::stod(clock[1]), seconds = std::stod(elapsed[1]);
  EXPECT_NEAR(std::stod(clock[2]), ms / 1e3 / seconds, 0.0015 + 0.01 / 1e3 / seconds) << r.err;
}

// IPC where the machine counts its events (the ratio of the counts beside it; the emulated-PMU rig
// checks it is exactly 1.000 under -icount shift=0), else the sentence naming the event it lacks.
TEST(CliMetrics, IpcIsItsCountsRatioOrSaysWhichEventItLacks) {
  const Result r = run({PERFMON, "stat", "-j", "-M", "IPC", "--", "/bin/true"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::vector<nlohmann::json> rows = json_lines(r.err);
  const nlohmann::json* instructions = row_of(rows, "instructions");
  const nlohmann::json* cycles = row_of(rows, "cycles");
  ASSERT_TRUE(instructions && cycles) << r.err;
  if (instructions->at("counter-value") == "<not supported>") {
    // Said on the terminal (the JSON stays rows): which event, and why.
    const Result table = run({PERFMON, "stat", "-M", "IPC", "--", "/bin/true"});
    EXPECT_NE(table.err.find("The metric IPC has no value here: instructions is not supported here."),
              std::string::npos)
        << table.err;
    EXPECT_EQ(table.err.find("IPC\n"), std::string::npos) << "a value was printed:\n" << table.err;
    return;
  }
  const double ipc = std::stod(instructions->at("counter-value").get<std::string>()) /
                     std::stod(cycles->at("counter-value").get<std::string>());
  EXPECT_NEAR(instructions->at("metric-value").get<double>(), ipc, 1e-5 * ipc) << r.err;
}

TEST(CliMetrics, AnUnknownNameIsRefusedWithTheNearestOnes) {
  const Result r = run({PERFMON, "stat", "-M", "ipcc", "--", "/bin/true"});
  EXPECT_EQ(r.exit_code, 129);
  EXPECT_NE(r.err.find("perfmon stat: 'ipcc' is neither a metric nor a group of metrics here; did you mean 'IPC'? "
                       "(perfmon list metrics shows them)."),
            std::string::npos)
      << r.err;
}

TEST(CliMetrics, EveryIntervalHasItsMetrics) {
  const Result r =
      run({PERFMON, "stat", "-j", "-I", "100", "-M", "page_faults_per_second", "--", WORKER, "spin", "450"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  int with_metric = 0;
  for (const nlohmann::json& row : json_lines(r.err))
    if (row.contains("interval") && row.value("event", "") == "page-faults" && row["counter-value"] != "0.000000" &&
        row["metric-unit"] == "/sec  page_faults_per_second")
      ++with_metric;
  // The spinning worker faults at its start at least: that interval carries the rate; quieter ones
  // carry 0 /sec. Every interval has task-clock, so every row has its figure.
  int rows = 0;
  for (const nlohmann::json& row : json_lines(r.err))
    if (row.contains("interval") && row.value("event", "") == "page-faults") {
      ++rows;
      EXPECT_EQ(row["metric-unit"], "/sec  page_faults_per_second") << row;
    }
  EXPECT_GE(rows, 3) << r.err;
  EXPECT_GE(with_metric, 1) << r.err;
}

TEST(CliMetrics, TheEmulatedBranchMissRateIsItsCounts) {
  REQUIRE_QEMU();
  auto rate = [](const std::string& mode) {
    std::vector<std::string> args = {"-x,", "-M", "branch_miss_rate", "--", EMULATED_LOOP};
    if (!mode.empty()) args.push_back(mode);
    args.push_back(loop(1'000'000));
    const Result r = emulated_stat(args);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    double misses = -1, branches = -1, metric = -1;
    for (const std::string& line : lines_of(r.err)) {
      const std::vector<std::string> fields = fields_of(line);
      if (fields.size() < 8) continue;
      if (fields[2] == "branch-misses") {
        misses = std::stod(fields[0]);
        EXPECT_EQ(fields[6], "%  branch_miss_rate") << line;
        EXPECT_EQ(fields.back(), "emulated") << line;
        metric = std::stod(fields[5]);
      }
      if (fields[2] == "branches") branches = std::stod(fields[0]);
    }
    EXPECT_GT(branches, 1e6) << r.err;
    EXPECT_NEAR(metric, 100 * misses / branches, 0.0005) << r.err;
    return metric;
  };
  // A learnt loop misses almost never; a branch on a pseudo-random bit about half the time, and it
  // is one of the loop's two branches.
  const double learnt = rate(""), random = rate("random-branches");
  EXPECT_LT(learnt, 1.0);
  EXPECT_GT(random, 15.0);
  EXPECT_LT(random, 35.0);
}

// A directory in perf's pmu-events layout whose one row matches any CPU, its metrics over the
// worker's getppid calls: exact values, a metric referring to another, a threshold, and -e's
// events kept.
class CliMetricsDir : public ::testing::Test {
 protected:
  void SetUp() override {
    std::filesystem::create_directories(root_ / "anycpu");
    std::ofstream(root_ / "mapfile.csv") << "Family-model,Version,Filename,EventType\n.*,v1,anycpu,core\n";
    std::ofstream(root_ / "anycpu" / "metrics.json") << R"json([
      {"MetricName": "calls_twice", "MetricExpr": "2 * syscalls:sys_enter_getppid", "MetricGroup": "Calls"},
      {"MetricName": "calls_share", "MetricExpr": "syscalls:sys_enter_getppid / (calls_twice + 2 * syscalls:sys_enter_getpid)",
       "ScaleUnit": "100%", "MetricGroup": "Calls", "MetricThreshold": "calls_share > 0.4"},
      {"MetricName": "tp_getppid", "MetricExpr": "syscalls:sys_enter_getppid / tp_calls", "ScaleUnit": "100%",
       "MetricGroup": "TopdownL1"},
      {"MetricName": "tp_getpid", "MetricExpr": "1 - tp_getppid", "ScaleUnit": "100%", "MetricGroup": "TopdownL1"},
      {"MetricName": "tp_calls", "MetricExpr": "syscalls:sys_enter_getppid + syscalls:sys_enter_getpid",
       "MetricGroup": "TopdownL2", "ScaleUnit": "6.103515625e-5MiB"}
    ])json";
  }
  void TearDown() override { std::filesystem::remove_all(root_); }
  const std::filesystem::path root_ =
      std::filesystem::temp_directory_path() / ("perfmon-metrics-dir-" + std::to_string(getpid()));
};

TEST_F(CliMetricsDir, ATablesMetricsAreExactOnExactCounts) {
  const Result r = run({PERFMON, "stat", "-j", "--metrics-dir", root_.string(), "-M", "Calls", "-e", "page-faults",
                        "--", WORKER, "getppid", "1000"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::vector<nlohmann::json> rows = json_lines(r.err);
  std::vector<std::string> events;
  for (const nlohmann::json& row : rows) events.push_back(row.value("event", ""));
  EXPECT_EQ(events,
            (std::vector<std::string>{"page-faults", "syscalls:sys_enter_getppid", "", "syscalls:sys_enter_getpid"}))
      << r.err;
  const nlohmann::json* calls = row_of(rows, "syscalls:sys_enter_getppid");
  ASSERT_TRUE(calls) << r.err;
  EXPECT_EQ(calls->at("counter-value"), "1000.000000");
  EXPECT_EQ(calls->at("metric-value"), 2000);
  EXPECT_EQ(calls->at("metric-unit"), "calls_twice");
  // calls_share's first event is getppid's too: a line of its own after it, 1000 / 2000.
  EXPECT_EQ(rows[2].at("metric-value"), 50);
  EXPECT_EQ(rows[2].at("metric-unit"), "%  calls_share");
  EXPECT_EQ(rows[2].at("metric-threshold"), "bad");
  // The table says it under the counts, with the threshold.
  const Result table =
      run({PERFMON, "stat", "--metrics-dir", root_.string(), "-M", "Calls", "--", WORKER, "getppid", "1000"});
  EXPECT_NE(table.err.find("\nThe metric calls_share is past its threshold (calls_share > 0.4).\n"), std::string::npos)
      << table.err;
  const Result listed = run({PERFMON, "list", "--metrics-dir", root_.string(), "metrics"});
  EXPECT_NE(listed.out.find("\n  calls_twice "), std::string::npos) << listed.out;
  const Result wrong = run({PERFMON, "stat", "--metrics-dir", (root_ / "anycpu").string(), "-M", "Calls", "true"});
  EXPECT_NE(wrong.exit_code, 0);
  EXPECT_NE(wrong.err.find("There is no " + (root_ / "anycpu" / "mapfile.csv").string() + ": give the directory"),
            std::string::npos)
      << wrong.err;
}

// A metric's events are counted in one group (perf's weak group), each event once, so that its
// ratio is of counts over the same time; --metric-no-group counts them apart, and the values stay.
TEST_F(CliMetricsDir, AMetricsEventsAreCountedInOneGroup) {
  const Result grouped = run(
      {PERFMON, "stat", "-v", "-x,", "--metrics-dir", root_.string(), "-M", "Calls", "--", WORKER, "getppid", "1000"});
  ASSERT_EQ(grouped.exit_code, 0) << grouped.err;
  EXPECT_NE(grouped.err.find("perfmon stat: the metrics' events, as counted: "
                             "{syscalls:sys_enter_getppid,syscalls:sys_enter_getpid}:W\n"),
            std::string::npos)
      << grouped.err;
  const Result apart = run({PERFMON, "stat", "-v", "-x,", "--metric-no-group", "--metrics-dir", root_.string(), "-M",
                            "Calls", "--", WORKER, "getppid", "1000"});
  ASSERT_EQ(apart.exit_code, 0) << apart.err;
  EXPECT_NE(apart.err.find("as counted: syscalls:sys_enter_getppid syscalls:sys_enter_getpid\n"), std::string::npos)
      << apart.err;
  for (const Result* r : {&grouped, &apart})
    EXPECT_NE(r->err.find("1000,,syscalls:sys_enter_getppid,"), std::string::npos) << r->err;
  EXPECT_NE(grouped.err.find(",2000.000,calls_twice"), std::string::npos) << grouped.err;
}

// --metric-only: the metrics alone, a column each; the table's values exact over a tracepoint, and
// perf's shadow figures left out where -M chose the metrics.
TEST_F(CliMetricsDir, MetricOnlyPrintsTheMetricsAlone) {
  const Result csv = run({PERFMON, "stat", "--metric-only", "-x,", "--metrics-dir", root_.string(), "-M", "Calls", "--",
                          WORKER, "getppid", "1000"});
  ASSERT_EQ(csv.exit_code, 0) << csv.err;
  EXPECT_EQ(lines_of(csv.err).at(0), "calls_twice,%  calls_share") << csv.err;
  EXPECT_EQ(lines_of(csv.err).at(1), "2000.000,50.000") << csv.err;
  const Result table = run({PERFMON, "stat", "--metric-only", "--metrics-dir", root_.string(), "-M", "calls_twice",
                            "-e", "task-clock", "--", WORKER, "getppid", "1000"});
  ASSERT_EQ(table.exit_code, 0) << table.err;
  EXPECT_NE(table.err.find("\n  calls_twice\n     2000.000\n"), std::string::npos) << table.err;
  EXPECT_EQ(table.err.find("CPUs utilized"), std::string::npos) << table.err;
}

// --topdown: the table's TopdownL1 group (Intel's name; AMD's is PipelineL1), its shares adding up
// to 100 %; --td-level the next; without such a group, one sentence.
TEST_F(CliMetricsDir, TopdownIsTheTablesLevelOneGroup) {
  const Result r = run({PERFMON, "stat", "--metric-only", "-x,", "--metrics-dir", root_.string(), "--topdown", "--",
                        WORKER, "getppid", "1000"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(lines_of(r.err).at(0), "%  tp_getppid,%  tp_getpid") << r.err;
  EXPECT_EQ(lines_of(r.err).at(1), "100.000,0.000") << r.err;
  const Result level_two = run({PERFMON, "stat", "--metric-only", "-x,", "--metrics-dir", root_.string(), "--td-level",
                                "2", "--", WORKER, "getppid", "1000"});
  ASSERT_EQ(level_two.exit_code, 0) << level_two.err;
  EXPECT_EQ(lines_of(level_two.err).at(0), "MiB  tp_calls") << level_two.err;
  EXPECT_EQ(lines_of(level_two.err).at(1), "0.061") << level_two.err;  // 1000 * 6.103515625e-5
  // The table's ScaleUnit as its JSON wrote it, in list -j's perf-shaped lines.
  const Result listed = run({PERFMON, "list", "-j", "--metrics-dir", root_.string(), "metrics"});
  EXPECT_NE(listed.out.find("\"MetricName\":\"tp_calls\",\"MetricExpr\":\"syscalls:sys_enter_getppid + "
                            "syscalls:sys_enter_getpid\",\"ScaleUnit\":\"6.103515625e-05MiB\""),
            std::string::npos)
      << listed.out;
  const Result none = run({PERFMON, "stat", "--metrics-dir", root_.string(), "--td-level", "3", "true"});
  EXPECT_EQ(none.exit_code, 129);
  EXPECT_NE(none.err.find("--topdown needs this CPU's top-down metrics of level 3, which " + root_.string() +
                          " does not have for this CPU (no group TopdownL3 or PipelineL3)."),
            std::string::npos)
      << none.err;
}

// perfmon's own per-model tables, chosen by the CPU's id (PERF_CPUID stands for it, as in perf):
// a Sapphire Rapids' top-down tree is listed and --topdown chooses its level 1, whose events this
// machine (another CPU) cannot open: each metric says so, none prints a number; a CPU without a
// table names its id and what to do.
TEST(CliMetrics, ShippedTablesAreChosenByTheCpusId) {
  const Result listed = run({"/usr/bin/env", "PERF_CPUID=GenuineIntel-6-8F-4", PERFMON, "list", "metrics"});
  ASSERT_EQ(listed.exit_code, 0) << listed.err;
  for (const char* name : {"tma_frontend_bound", "tma_info_thread_ipc", "CPUs_utilized"})
    EXPECT_NE(listed.out.find("\n  " + std::string(name) + " "), std::string::npos) << name;
  EXPECT_NE(listed.out.find("= topdown\\-fe\\-bound / ( topdown\\-fe\\-bound + topdown\\-bad\\-spec"),
            std::string::npos)
      << listed.out;
  const Result groups = run({"/usr/bin/env", "PERF_CPUID=GenuineIntel-6-8F-4", PERFMON, "list", "metricgroups"});
  EXPECT_NE(groups.out.find("\n  TopdownL1 "), std::string::npos) << groups.out;
  const Result topdown = run({"/usr/bin/env", "PERF_CPUID=GenuineIntel-6-8F-4", PERFMON, "stat", "--topdown", "true"});
  ASSERT_EQ(topdown.exit_code, 0) << topdown.err;
  for (const char* metric : {"tma_frontend_bound", "tma_bad_speculation", "tma_backend_bound", "tma_retiring"})
    EXPECT_NE(topdown.err.find("The metric " + std::string(metric) + " has no value here: "), std::string::npos)
        << metric << "\n"
        << topdown.err;
  EXPECT_EQ(topdown.err.find('%'), std::string::npos) << topdown.err;
  const Result neoverse = run({"/usr/bin/env", "PERF_CPUID=0x00000000413fd0c1", PERFMON, "list", "metricgroups"});
  EXPECT_NE(neoverse.out.find("\n  Cycle_Accounting "), std::string::npos) << neoverse.out;
  const Result none = run({"/usr/bin/env", "PERF_CPUID=AuthenticAMD-25-11-1", PERFMON, "stat", "--topdown", "true"});
  EXPECT_EQ(none.exit_code, 129);
  EXPECT_NE(none.err.find("--topdown needs this CPU's top-down metrics of level 1, which perfmon's tables do not "
                          "have for this CPU (AuthenticAMD-25-11-1): give --metrics-dir"),
            std::string::npos)
      << none.err;
}

// PAPI's presets for the CPU (PAPI's own table): listed with their native events, chosen with -M;
// here, without a PMU, each says which event it lacks.
TEST(CliMetrics, PapiPresetsOfTheCpu) {
  const Result listed = run({"/usr/bin/env", "PERF_CPUID=GenuineIntel-6-4E-3", PERFMON, "list", "papi-presets"});
  ASSERT_EQ(listed.exit_code, 0) << listed.err;
  EXPECT_NE(listed.out.find("PAPI's presets for skl "), std::string::npos) << listed.out;
  EXPECT_NE(listed.out.find("= L1D:REPLACEMENT + L2_RQSTS:ALL_CODE_RD"), std::string::npos) << listed.out;
  const Result counted = run({PERFMON, "stat", "-M", "PAPI_TOT_INS", "true"});
  ASSERT_EQ(counted.exit_code, 0) << counted.err;
  if (counted.err.find("<not supported>") != std::string::npos)
    EXPECT_NE(counted.err.find("The metric PAPI_TOT_INS has no value here: instructions is not supported here."),
              std::string::npos)
        << counted.err;
  else
    EXPECT_NE(counted.err.find("PAPI_TOT_INS"), std::string::npos) << counted.err;
  // PAPI_CSV_EVENT_FILE names another table (PAPI's variable): a derived preset over tracepoints,
  // exact; one that cannot be read is said in one sentence.
  const std::filesystem::path table =
      std::filesystem::temp_directory_path() / ("perfmon-papi-events-" + std::to_string(getpid()) + ".csv");
  std::ofstream(table)
      << "CPU,skl\nPRESET,PAPI_L1_TCM,DERIVED_ADD,syscalls:sys_enter_getppid,syscalls:sys_enter_getpid\n";
  const Result own = run({"/usr/bin/env", "PERF_CPUID=GenuineIntel-6-4E-3", "PAPI_CSV_EVENT_FILE=" + table.string(),
                          PERFMON, "stat", "-x,", "-M", "PAPI_L1_TCM", "--", WORKER, "getppid", "100"});
  std::filesystem::remove(table);
  ASSERT_EQ(own.exit_code, 0) << own.err;
  EXPECT_NE(own.err.find("100,,syscalls:sys_enter_getppid,"), std::string::npos) << own.err;
  EXPECT_NE(own.err.find(",100.000,PAPI_L1_TCM"), std::string::npos) << own.err;
  const Result unreadable =
      run({"/usr/bin/env", "PAPI_CSV_EVENT_FILE=" + table.string(), PERFMON, "stat", "-M", "PAPI_TOT_INS", "true"});
  EXPECT_EQ(unreadable.exit_code, 129);
  EXPECT_NE(unreadable.err.find("PAPI_CSV_EVENT_FILE names " + table.string() +
                                ", which cannot be read as a file (No such file or directory): name PAPI's "
                                "papi_events.csv or a table in its format, or unset it."),
            std::string::npos)
      << unreadable.err;
}

// perf matches a PMU's sysfs event names without case, as its metric tables write them (TSC).
TEST(CliMetrics, SysfsEventNamesMatchWithoutCase) {
  if (!std::filesystem::exists("/sys/bus/event_source/devices/msr/events/tsc"))
    GTEST_SKIP() << "this machine has no msr PMU with a tsc event";
  const Result r = run({PERFMON, "stat", "-x,", "-e", "TSC", "true"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find(",TSC,"), std::string::npos) << r.err;
}

// likwid's performance groups (-g NAME, --likwid-group), here from a directory of groups written
// for the test in likwid's format (LIKWID_PERFGROUPS) for a Skylake-SP's id (PERF_CPUID), whose
// counters name tracepoints the worker hits exactly.
class CliLikwidGroups : public ::testing::Test {
 protected:
  void SetUp() override {
    std::filesystem::create_directories(root_ / "skylakeX");
    std::ofstream(root_ / "skylakeX" / "CALLS.txt") << R"(SHORT getppid calls

EVENTSET
PMC0  syscalls:sys_enter_getppid
PMC1  syscalls:sys_enter_getpid

METRICS
Runtime (RDTSC) [s] time
Calls twice  2*PMC0
Calls [k]  1.E-03*(PMC0+ PMC1)

LONG
Formulas:
Calls twice = 2*getppid
)";
    std::ofstream(root_ / "skylakeX" / "true.txt")
        << "SHORT a group named as a program\nEVENTSET\nPMC0 x\nMETRICS\nX PMC0\n";
  }
  void TearDown() override { std::filesystem::remove_all(root_); }
  std::vector<std::string> with_env(std::vector<std::string> command) const {
    command.insert(command.begin(),
                   {"/usr/bin/env", "PERF_CPUID=GenuineIntel-6-55-4", "LIKWID_PERFGROUPS=" + root_.string()});
    return command;
  }
  const std::filesystem::path root_ =
      std::filesystem::temp_directory_path() / ("perfmon-likwid-groups-" + std::to_string(getpid()));
};

TEST_F(CliLikwidGroups, AGroupsMetricsAreExactOnExactCounts) {
  for (const char* option : {"-g", "--likwid-group"}) {
    const Result r = run(with_env({PERFMON, "stat", "-x,", option, "CALLS", "--", WORKER, "getppid", "1000"}));
    ASSERT_EQ(r.exit_code, 0) << option << "\n" << r.err;
    EXPECT_NE(r.err.find("1000,,syscalls:sys_enter_getppid,"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find(",2000.000,Calls twice"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find(",1.000,k  Calls"), std::string::npos) << r.err;
  }
  const Result listed = run(with_env({PERFMON, "list", "likwid-groups"}));
  EXPECT_NE(listed.out.find("likwid's performance groups for skylakeX (perfmon stat -g NAME), from " + root_.string()),
            std::string::npos)
      << listed.out;
  EXPECT_NE(listed.out.find("\n  CALLS  "), std::string::npos) << listed.out;
}

// likwid-perfctr's -m -g GROUP: the group's metrics of each thread in each marked region.
TEST_F(CliLikwidGroups, AGroupPerThreadInMarkedRegions) {
  const Result r = run(with_env({PERFMON, "stat", "-x,", "--markers", "-g", "CALLS", "--", LIKWID_THREADS}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  int threads = 0;
  for (const std::string& line : lines_of(r.err)) {
    std::vector<std::string> fields;
    std::istringstream in(line);
    for (std::string field; std::getline(in, field, ',');) fields.push_back(field);
    if (fields.size() < 9 || !fields[0].starts_with("thread") || fields[1] != "work") continue;
    if (fields[4] != "syscalls:sys_enter_getppid") continue;
    ++threads;
    EXPECT_EQ(fields[7], std::to_string(2 * std::stoll(fields[2])) + ".000") << line;
    EXPECT_EQ(fields[8], "Calls twice") << line;
  }
  EXPECT_EQ(threads, 8) << r.err;
}

// Several groups, as likwid-perfctr -m -g A -g B takes them: the program switches them
// (LIKWID_MARKER_SWITCH), each region is reported in each group with that group's metrics, exact,
// the time of a region a thread's own there; the program's own likwid calls see the groups by name.
// Without --markers, several groups are refused in one sentence.
TEST_F(CliLikwidGroups, SeveralGroupsInMarkedRegions) {
  if (std::string(LIKWID_GROUPS_PROGRAM).empty()) GTEST_SKIP() << "likwid.h is missing (Debian's likwid)";
  std::ofstream(root_ / "skylakeX" / "OTHER.txt")
      << "SHORT getpid calls\nEVENTSET\nPMC0 syscalls:sys_enter_getpid\nPMC1 syscalls:sys_enter_getppid\n"
         "METRICS\nPer getpid PMC1/(PMC0+1)\nCalls per second PMC1/time\nLONG\nx\n";
  const Result r =
      run(with_env({PERFMON, "stat", "-x,", "--markers", "-g", "CALLS", "-g", "OTHER", "--", LIKWID_GROUPS_PROGRAM}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("group 0 CALLS: 2 events, 3 metrics\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("group 1 OTHER: 2 events, 2 metrics\n  syscalls:sys_enter_getpid on PMC0: 0\n"
                       "  syscalls:sys_enter_getppid on PMC1: 200\n  Per getpid = 200.000\n"),
            std::string::npos)
      << r.out;
  // The regions' rows: CALLS's region (100 calls), then OTHER's (200).
  std::vector<std::string> region_rows;
  double calls_per_second = 0;
  for (const std::string& line : lines_of(r.err)) {
    if (!line.starts_with("thread0,calls,")) continue;
    region_rows.push_back(line.substr(0, line.find(',', line.find(',', 14) + 1)));
    if (line.ends_with(",Calls per second")) {
      std::vector<std::string> fields;
      std::istringstream in(line);
      for (std::string field; std::getline(in, field, ',');) fields.push_back(field);
      calls_per_second = std::stod(fields.at(7));
    }
  }
  EXPECT_EQ(region_rows, (std::vector<std::string>{"thread0,calls,100,", "thread0,calls,,", "thread0,calls,0,",
                                                   "thread0,calls,0,", "thread0,calls,200,", "thread0,calls,,"}))
      << r.err;
  EXPECT_GT(calls_per_second, 0) << r.err;  // 200 calls over the thread's own time in the region
  EXPECT_NE(r.err.find(",200.000,Per getpid"), std::string::npos) << r.err;
  const Result alone = run(with_env({PERFMON, "stat", "-g", "CALLS", "-g", "OTHER", "--", "true"}));
  EXPECT_EQ(alone.exit_code, 129);
  EXPECT_NE(alone.err.find("several likwid groups are counted one at a time in marked regions"), std::string::npos)
      << alone.err;
}

// perf's -g (--group) stays perf's where the word after it is a program, or no group of this CPU.
TEST_F(CliLikwidGroups, PerfsGroupFlagStaysWhereTheWordIsAProgram) {
  const Result program = run(with_env({PERFMON, "stat", "-x,", "-g", "true"}));
  ASSERT_EQ(program.exit_code, 0) << program.err;
  EXPECT_NE(program.err.find(",task-clock,"), std::string::npos) << program.err;
  const Result unknown = run(with_env({PERFMON, "stat", "--likwid-group", "CALS", "true"}));
  EXPECT_EQ(unknown.exit_code, 129);
  EXPECT_NE(
      unknown.err.find("likwid has no group 'CALS' for skylakeX (its groups: CALLS, true); did you mean 'CALLS'?"),
      std::string::npos)
      << unknown.err;
  const Result both = run(with_env({PERFMON, "stat", "-g", "CALLS", "-M", "IPC", "true"}));
  EXPECT_EQ(both.exit_code, 129);
  EXPECT_NE(both.err.find("computes its own metrics: give it without -M or --topdown"), std::string::npos) << both.err;
}

TEST(CliMetrics, ListShowsTheMetricsAndTheirGroups) {
  const Result metrics = run({PERFMON, "list", "metrics"});
  ASSERT_EQ(metrics.exit_code, 0) << metrics.err;
  for (const char* name : {"CPUs_utilized", "IPC", "branch_miss_rate", "llc_miss_rate"})
    EXPECT_NE(metrics.out.find("\n  " + std::string(name) + " "), std::string::npos) << name << "\n" << metrics.out;
  EXPECT_NE(metrics.out.find("= instructions / cycles"), std::string::npos) << metrics.out;
  const Result json = run({PERFMON, "list", "-j", "metrics"});
  ASSERT_EQ(json.exit_code, 0) << json.err;
  bool software_usable = false;
  for (const nlohmann::json& line : json_lines(json.out))
    if (line["MetricName"] == "page_faults_per_second") software_usable = line["usable"].get<bool>();
  EXPECT_TRUE(software_usable) << json.out;
  const Result groups = run({PERFMON, "list", "metricgroups"});
  ASSERT_EQ(groups.exit_code, 0) << groups.err;
  EXPECT_NE(groups.out.find("\n  Default "), std::string::npos) << groups.out;
}

}  // namespace
}  // namespace perfmon::testing
