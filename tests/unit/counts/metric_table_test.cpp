// SPDX-License-Identifier: Apache-2.0
// A metric table in perf's JSON shape: read, chosen from by name and group, compiled into the
// events it needs with the metrics it refers to, evaluated (values worked out in the test), scaled,
// its thresholds tested; top-down level 1 summing to 100 %; each refusal's sentence.
#include "perfmon/metric_table.hpp"

#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <string>
#include <vector>

#include "perfmon/error.hpp"

namespace perfmon {
namespace {

// Written for this test in perf's pmu-events shape: a top-down level 1 over Skylake-like events
// (slots = 4 per cycle), IPC, a GHz with its ScaleUnit, and an event entry (skipped).
constexpr const char* kTable = R"json([
  {"EventName": "INST_RETIRED.ANY", "EventCode": "0xc0", "BriefDescription": "an event, not a metric"},
  {"MetricName": "IPC", "MetricExpr": "INST_RETIRED.ANY / CPU_CLK_UNHALTED.THREAD",
   "MetricGroup": "Ret;Summary", "BriefDescription": "Instructions per cycle"},
  {"MetricName": "CPI", "MetricExpr": "1 / IPC", "MetricGroup": "Pipeline;Mem",
   "MetricThreshold": "CPI > 1"},
  {"MetricName": "GHz", "MetricExpr": "CPU_CLK_UNHALTED.THREAD / 1e9 / duration_time",
   "ScaleUnit": "1GHz", "MetricGroup": "Summary"},
  {"MetricName": "tma_frontend_bound", "MetricExpr": "IDQ_UOPS_NOT_DELIVERED.CORE / tma_info_slots",
   "MetricGroup": "TopdownL1;tma_L1_group", "ScaleUnit": "100%",
   "MetricThreshold": "tma_frontend_bound > 0.15"},
  {"MetricName": "tma_bad_speculation",
   "MetricExpr": "(UOPS_ISSUED.ANY - UOPS_RETIRED.RETIRE_SLOTS + 4 * INT_MISC.RECOVERY_CYCLES) / tma_info_slots",
   "MetricGroup": "TopdownL1;tma_L1_group", "ScaleUnit": "100%",
   "MetricThreshold": "tma_bad_speculation > 0.15"},
  {"MetricName": "tma_retiring", "MetricExpr": "UOPS_RETIRED.RETIRE_SLOTS / tma_info_slots",
   "MetricGroup": "TopdownL1;tma_L1_group", "ScaleUnit": "100%",
   "MetricThreshold": "tma_retiring > 0.7 | tma_heavy_operations > 0.1"},
  {"MetricName": "tma_backend_bound",
   "MetricExpr": "1 - (tma_frontend_bound + tma_bad_speculation + tma_retiring)",
   "MetricGroup": "TopdownL1;tma_L1_group", "ScaleUnit": "100%",
   "MetricThreshold": "tma_backend_bound > 0.2"},
  {"MetricName": "tma_heavy_operations", "MetricExpr": "UOPS_RETIRED.MS / tma_info_slots",
   "MetricGroup": "TopdownL2", "ScaleUnit": "100%"},
  {"MetricName": "tma_info_slots", "MetricExpr": "4 * CPU_CLK_UNHALTED.THREAD", "MetricGroup": "TmaL1"}
])json";

// The set's results by metric name, from event values by name.
std::map<std::string, MetricResult> evaluate(const MetricTable& table, const std::string& chosen,
                                             const std::map<std::string, double>& counts,
                                             const std::map<std::string, double>& errors = {}) {
  const MetricSet set(table, table.select(chosen), {});
  std::vector<double> values, value_errors;
  for (const std::string& event : set.events()) {
    values.push_back(counts.contains(event) ? counts.at(event) : std::nan(""));
    value_errors.push_back(errors.contains(event) ? errors.at(event) : 0);
  }
  std::map<std::string, MetricResult> results;
  for (const MetricResult& result : set.evaluate(values, value_errors))
    results[table.metrics()[result.metric].name] = result;
  return results;
}

const std::map<std::string, double> kCounts = {
    {"INST_RETIRED.ANY", 3000},           {"CPU_CLK_UNHALTED.THREAD", 2000}, {"duration_time", 1e-6},
    {"IDQ_UOPS_NOT_DELIVERED.CORE", 800}, {"UOPS_ISSUED.ANY", 3400},         {"UOPS_RETIRED.RETIRE_SLOTS", 3200},
    {"INT_MISC.RECOVERY_CYCLES", 50},     {"UOPS_RETIRED.MS", 100},
};

TEST(MetricTable, ReadsPerfsJsonAndSkipsEvents) {
  const MetricTable table = MetricTable::from_json(kTable, "test.json");
  ASSERT_EQ(table.metrics().size(), 9u);
  const MetricDefinition& frontend = table.metrics()[*table.find("TMA_FRONTEND_BOUND")];  // case aside
  EXPECT_EQ(frontend.name, "tma_frontend_bound");
  EXPECT_EQ(frontend.scale, 100);
  EXPECT_EQ(frontend.unit, "%");
  EXPECT_EQ(frontend.groups, (std::vector<std::string>{"TopdownL1", "tma_L1_group"}));
  EXPECT_EQ(frontend.threshold, "tma_frontend_bound > 0.15");
  EXPECT_EQ(table.metrics()[*table.find("GHz")].unit, "GHz");
  EXPECT_EQ(table.metrics()[*table.find("IPC")].description, "Instructions per cycle");
  EXPECT_EQ(table.groups(), (std::vector<std::string>{"Mem", "Pipeline", "Ret", "Summary", "TmaL1", "TopdownL1",
                                                      "TopdownL2", "tma_L1_group"}));
}

TEST(MetricTable, ChoosesByNameAndGroup) {
  const MetricTable table = MetricTable::from_json(kTable, "test.json");
  auto names = [&](const std::string& list) {
    std::vector<std::string> chosen;
    for (std::size_t m : table.select(list)) chosen.push_back(table.metrics()[m].name);
    return chosen;
  };
  EXPECT_EQ(names("ipc"), std::vector<std::string>{"IPC"});
  EXPECT_EQ(names("Summary, ipc"), (std::vector<std::string>{"IPC", "GHz"}));  // each once
  EXPECT_EQ(names("topdownl1"), (std::vector<std::string>{"tma_frontend_bound", "tma_bad_speculation", "tma_retiring",
                                                          "tma_backend_bound"}));
  try {
    table.select("TopdownL3");
    FAIL() << "an unknown group was chosen";
  } catch (const Error& error) {
    EXPECT_EQ(std::string(error.what()),
              "'TopdownL3' is neither a metric nor a group of metrics here; did you mean 'TopdownL1' or 'TopdownL2'? "
              "(perfmon list metrics shows them).");
  }
}

TEST(MetricTable, ValuesFromTheEventsAndTheMetricsTheyReferTo) {
  const MetricTable table = MetricTable::from_json(kTable, "test.json");
  const MetricSet set(table, table.select("CPI"), {});
  // CPI names IPC, a metric: its events are IPC's.
  EXPECT_EQ(set.events(), (std::vector<std::string>{"INST_RETIRED.ANY", "CPU_CLK_UNHALTED.THREAD"}));
  const auto results = evaluate(table, "IPC,CPI,GHz", kCounts);
  EXPECT_DOUBLE_EQ(results.at("IPC").value, 1.5);
  EXPECT_DOUBLE_EQ(results.at("CPI").value, 2000.0 / 3000.0);
  EXPECT_EQ(results.at("CPI").over_threshold, std::optional<bool>(false));
  EXPECT_EQ(results.at("IPC").over_threshold, std::nullopt);     // none given
  EXPECT_DOUBLE_EQ(results.at("GHz").value, 2000 / 1e9 / 1e-6);  // 2 GHz
  // An event without a value: no value, no threshold verdict.
  const auto missing = evaluate(table, "CPI", {{"INST_RETIRED.ANY", 3000}});
  EXPECT_TRUE(std::isnan(missing.at("CPI").value));
  EXPECT_EQ(missing.at("CPI").over_threshold, std::nullopt);
}

// perf's consistency rule for top-down: level 1's four shares add up to 100 %.
TEST(MetricTable, TopDownLevelOneSumsToAHundredPercent) {
  const MetricTable table = MetricTable::from_json(kTable, "test.json");
  const auto results = evaluate(table, "TopdownL1", kCounts);
  const double slots = 4 * 2000;
  EXPECT_DOUBLE_EQ(results.at("tma_frontend_bound").value, 100 * 800 / slots);                      // 10 %
  EXPECT_DOUBLE_EQ(results.at("tma_bad_speculation").value, 100 * (3400 - 3200 + 4 * 50) / slots);  // 5 %
  EXPECT_DOUBLE_EQ(results.at("tma_retiring").value, 100 * 3200 / slots);                           // 40 %
  double sum = 0;
  for (const char* name : {"tma_frontend_bound", "tma_bad_speculation", "tma_retiring", "tma_backend_bound"})
    sum += results.at(name).value;
  EXPECT_NEAR(sum, 100, 1e-9);
  EXPECT_DOUBLE_EQ(results.at("tma_backend_bound").value, 45);
  // Thresholds on unscaled values; a threshold may name a metric that was not chosen.
  EXPECT_EQ(results.at("tma_backend_bound").over_threshold, std::optional<bool>(true));    // 0.45 > 0.2
  EXPECT_EQ(results.at("tma_frontend_bound").over_threshold, std::optional<bool>(false));  // 0.10
  EXPECT_EQ(results.at("tma_retiring").over_threshold, std::optional<bool>(false));        // 0.40, heavy 100/8000
  EXPECT_FALSE(results.contains("tma_heavy_operations"));  // computed for the threshold, not shown
}

TEST(MetricTable, ErrorBarsScaleWithTheValue) {
  const MetricTable table = MetricTable::from_json(kTable, "test.json");
  const auto results = evaluate(table, "tma_retiring", kCounts, {{"UOPS_RETIRED.RETIRE_SLOTS", 80}});
  EXPECT_NEAR(results.at("tma_retiring").error, 100 * 80 / 8000.0, 1e-9);  // 1 point of 100 %
}

// Every metric of perfmon's common table, on fixture counts, against its formula worked out here:
// a metric added to the table without its value here fails.
TEST(MetricTable, EveryCommonMetricIsItsFormula) {
  const MetricTable table = MetricTable::common();
  const std::map<std::string, double> counts = {
      {"task-clock", 2e6},  // nanoseconds
      {"duration_time", 4e-3},
      {"context-switches", 10},
      {"cpu-migrations", 2},
      {"page-faults", 100},
      {"instructions", 3e6},
      {"cycles", 2e6},
      {"branches", 5e5},
      {"branch-misses", 1e4},
      {"stalled-cycles-frontend", 4e5},
      {"stalled-cycles-backend", 6e5},
      {"cache-references", 1000},
      {"cache-misses", 250},
      {"L1-dcache-loads", 8e5},
      {"L1-dcache-load-misses", 8e3},
      {"L1-icache-loads", 4e5},
      {"L1-icache-load-misses", 2e3},
      {"LLC-loads", 500},
      {"LLC-load-misses", 50},
      {"dTLB-loads", 8e5},
      {"dTLB-load-misses", 80},
      {"iTLB-loads", 2e5},
      {"iTLB-load-misses", 10},
  };
  const std::map<std::string, std::pair<double, std::string>> expected = {
      {"CPUs_utilized", {0.5, "CPUs"}},  // 2 ms of CPU in 4 ms
      {"cs_per_second", {5000, "/sec"}},
      {"migrations_per_second", {1000, "/sec"}},
      {"page_faults_per_second", {50000, "/sec"}},
      {"IPC", {1.5, "insn per cycle"}},
      {"CPI", {2.0 / 3.0, "cycles per insn"}},
      {"cycles_frequency", {1.0, "GHz"}},  // 2e6 cycles in 2e6 ns
      {"branch_frequency", {2.5e8, "/sec"}},
      {"branch_miss_rate", {2.0, "%"}},
      {"frontend_cycles_idle", {20.0, "%"}},
      {"backend_cycles_idle", {30.0, "%"}},
      {"cache_miss_rate", {25.0, "%"}},
      {"l1d_miss_rate", {1.0, "%"}},
      {"l1i_miss_rate", {0.5, "%"}},
      {"llc_miss_rate", {10.0, "%"}},
      {"dtlb_miss_rate", {0.01, "%"}},
      {"itlb_miss_rate", {0.005, "%"}},
  };
  ASSERT_EQ(table.metrics().size(), expected.size());
  for (const MetricDefinition& metric : table.metrics()) {
    ASSERT_TRUE(expected.contains(metric.name)) << metric.name << " has no expected value in this test";
    const auto results = evaluate(table, metric.name, counts);
    EXPECT_NEAR(results.at(metric.name).value, expected.at(metric.name).first,
                1e-12 * std::fabs(expected.at(metric.name).first))
        << metric.name;
    EXPECT_EQ(metric.unit, expected.at(metric.name).second) << metric.name;
    EXPECT_FALSE(metric.description.empty()) << metric.name;
  }
  // perf's Default group's metrics are there.
  EXPECT_EQ(table.select("Default").size(), 10u);
}

// perf's layout: mapfile.csv rows naming each CPU's directory, by pattern.
TEST(MetricTable, ACpusTableIsFoundThroughTheMapfile) {
  const std::filesystem::path root =
      std::filesystem::temp_directory_path() / ("perfmon-pmu-events-" + std::to_string(getpid()));
  std::filesystem::create_directories(root / "skylakex");
  std::filesystem::create_directories(root / "icelake");
  std::ofstream(root / "mapfile.csv") << "Family-model,Version,Filename,EventType\n"
                                         "GenuineIntel-6-55-[01234],v1.29,skylakex,core\n"
                                         "GenuineIntel-6-55-[01234],v1.0,skylakex-uncore,uncore\n"
                                         "GenuineIntel-6-(7D|7E|A7),v1.17,icelake,core\n"
                                         "AuthenticAMD-25-([1][0-9A-F]|[A][0-9A-F]),v1.0,icelake,core\n";
  std::ofstream(root / "skylakex" / "skx-metrics.json") << kTable;
  std::ofstream(root / "skylakex" / "cache.json") << R"([{"EventName": "L1D.REPLACEMENT"}])";
  std::ofstream(root / "icelake" / "icl-metrics.json") << R"([{"MetricName": "IPC", "MetricExpr": "7"}])";
  const MetricTable skylake = MetricTable::for_cpu(root, "GenuineIntel-6-55-4");
  EXPECT_EQ(skylake.metrics().size(), 9u);  // the metrics of its files; the events skipped
  MetricTable merged = MetricTable::common();
  merged.merge(MetricTable::for_cpu(root, "GenuineIntel-6-7E-5"));
  EXPECT_EQ(merged.metrics()[*merged.find("IPC")].expression, "7");  // the CPU's over the common one
  EXPECT_EQ(merged.metrics().size(), MetricTable::common().metrics().size());
  // Dashes in a range are dashes too: perf matches that pattern without the stepping.
  EXPECT_EQ(MetricTable::for_cpu(root, "AuthenticAMD-25-11-1").metrics().size(), 1u);
  auto refusal = [&](const std::filesystem::path& directory, const std::string& cpuid) {
    try {
      MetricTable::for_cpu(directory, cpuid);
    } catch (const Error& error) {
      return std::string(error.what());
    }
    return std::string();
  };
  EXPECT_EQ(refusal(root, "GenuineIntel-6-55-7"),
            (root / "mapfile.csv").string() +
                " has no row for this CPU (GenuineIntel-6-55-7): perf's tables do not "
                "cover it.");
  EXPECT_EQ(refusal(root / "nowhere", "x"),
            "There is no " + (root / "nowhere" / "mapfile.csv").string() +
                ": give the directory of perf's pmu-events for this architecture (such as "
                "tools/perf/pmu-events/arch/x86 of a Linux source tree).");
  std::filesystem::remove_all(root);
}

// A FIFO in the mapfile's place is refused at once, never waited on.
TEST(MetricTable, AMapfileThatIsNotARegularFileIsRefused) {
  const std::filesystem::path root =
      std::filesystem::temp_directory_path() / ("perfmon-fifo-" + std::to_string(getpid()));
  std::filesystem::create_directories(root);
  ASSERT_EQ(mkfifo((root / "mapfile.csv").c_str(), 0600), 0);
  try {
    MetricTable::for_cpu(root, "GenuineIntel-6-55-4");
    ADD_FAILURE() << "a FIFO was read as a mapfile";
  } catch (const Error& error) {
    EXPECT_EQ(std::string(error.what()), "Cannot read " + (root / "mapfile.csv").string() +
                                             ": it is not a regular file; it should be perf's mapfile.csv.");
  }
  std::filesystem::remove_all(root);
}

TEST(MetricTable, ThisCpusIdIsPerfs) {
  const std::string id = this_cpu_id();
  ASSERT_FALSE(id.empty());
#if defined(__x86_64__)
  // vendor-family-model-stepping, model and stepping in hexadecimal
  EXPECT_TRUE(std::regex_match(id, std::regex("(GenuineIntel|AuthenticAMD|HygonGenuine)-[0-9]+-[0-9A-F]+-[0-9A-F]+")))
      << id;
  // Read from CPUID, it is what the kernel says in /proc/cpuinfo (perf's source).
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::map<std::string, std::string> fields;
  for (std::string line; std::getline(cpuinfo, line) && !line.empty();) {
    const std::size_t colon = line.find(':');
    if (colon == std::string::npos) continue;
    std::string key = line.substr(0, colon);
    key.erase(key.find_last_not_of(" \t") + 1);
    fields[key] = colon + 2 <= line.size() ? line.substr(colon + 2) : "";
  }
  char expected[96];
  std::snprintf(expected, sizeof expected, "%s-%ld-%lX-%lX", fields["vendor_id"].c_str(),
                std::stol(fields["cpu family"]), std::stol(fields["model"]), std::stol(fields["stepping"]));
  EXPECT_EQ(id, expected);
#elif defined(__aarch64__)
  EXPECT_TRUE(std::regex_match(id, std::regex("0x[0-9a-f]{16}"))) << id;
#endif
}

TEST(MetricTable, RefusalsNameWhatIsWrong) {
  auto refusal = [](const std::string& json, const std::string& chosen = "") {
    try {
      const MetricTable table = MetricTable::from_json(json, "t.json");
      if (!chosen.empty()) MetricSet(table, table.select(chosen), {});
    } catch (const Error& error) {
      EXPECT_EQ(error.kind(), ErrorKind::InvalidArgument);
      return std::string(error.what());
    }
    return std::string();
  };
  EXPECT_EQ(refusal("{"), "The metric table t.json is not perf's metrics JSON (an array of objects): check the file.");
  EXPECT_EQ(refusal(R"([{"MetricName": "a", "MetricExpr": 5}])"),
            "The metric table t.json gives MetricExpr of entry 1 as something other than a string.");
  EXPECT_EQ(refusal(R"([{"MetricName": "a", "MetricExpr": "1", "ScaleUnit": "%"}])"),
            "The metric table t.json gives a the ScaleUnit '%', which does not start with a number (such as 100%).");
  EXPECT_EQ(refusal(R"([{"MetricName": "a", "MetricExpr": "1"}, {"MetricName": "A", "MetricExpr": "2"}])"),
            "The metric table t.json has the metric A twice: each name once, case aside.");
  EXPECT_EQ(refusal(R"([{"MetricName": "a", "MetricExpr": "b + 1"}, {"MetricName": "b", "MetricExpr": "c"},
                        {"MetricName": "c", "MetricExpr": "a * 2"}])",
                    "a"),
            "The metric a refers to itself (a -> b -> c -> a): the table is wrong.");
  EXPECT_EQ(refusal(R"([{"MetricName": "a", "MetricExpr": "min(x"}])", "a"),
            "The expression of the metric a, 'min(x', does not parse: at character 6, expected ',', found the end.");
}

// Intel's topdown events in one group led by slots, as the kernel counts them (Ice Lake on) and
// perf arranges them; the other groups as they were, in their order.
TEST(MetricTable, TopdownEventsAreGroupedUnderSlots) {
  auto one = [](const char* name) {
    Event event;
    event.name = name;
    return EventGroup{{event}};
  };
  std::vector<EventGroup> groups = {
      one("instructions"), one("topdown-fe-bound"),     one("INT_MISC.UOP_DROPPING"), one("topdown-be-bound"),
      one("slots"),        one("cpu/topdown-retiring/")};
  EXPECT_FALSE(topdown_needs_slots(groups));
  const std::vector<EventGroup> grouped = group_topdown_events(groups);
  std::vector<std::vector<std::string>> names;
  for (const EventGroup& group : grouped) {
    names.emplace_back();
    for (const Event& event : group.events) names.back().push_back(event.name);
  }
  EXPECT_EQ(names, (std::vector<std::vector<std::string>>{
                       {"instructions"},
                       {"slots", "topdown-fe-bound", "topdown-be-bound", "cpu/topdown-retiring/"},
                       {"INT_MISC.UOP_DROPPING"}}));
  EXPECT_TRUE(topdown_needs_slots({one("topdown-fe-bound")}));
  EXPECT_FALSE(topdown_needs_slots({one("instructions")}));
  EXPECT_EQ(group_topdown_events({one("instructions"), one("cycles")}).size(), 2u);
}

// The metric event plan as perf stat -M groups: a metric's events together, a metric whose events a
// group holds reads them there, groups joined while they fit the counters, MetricConstraint and
// --metric-no-group counted apart, a lone event taken into a later metric's group, each event once.
std::vector<std::vector<std::string>> planned_groups(const MetricTable& table, const MetricGrouping& rules,
                                                     const std::vector<EventGroup>& counted = {}) {
  std::vector<std::size_t> every(table.metrics().size());
  for (std::size_t m = 0; m < every.size(); ++m) every[m] = m;
  const MetricSet set(table, every, {});
  const EventCatalog catalog;
  const MetricEventGroups planned = metric_event_groups(table, set, catalog, rules, counted);
  std::vector<std::vector<std::string>> names;
  for (const EventGroup& group : planned.groups) {
    names.emplace_back();
    for (const Event& event : group.events) {
      names.back().push_back(event.name);
      EXPECT_EQ(event.weak_group, group.events.size() > 1) << event.name;
    }
  }
  for (const auto& [event, why] : planned.unknown) names.push_back({"unknown " + event});
  return names;
}

constexpr const char* kGroupedTable = R"json([
  {"MetricName": "ipc", "MetricExpr": "instructions / cycles"},
  {"MetricName": "cpi", "MetricExpr": "cycles / instructions"},
  {"MetricName": "miss", "MetricExpr": "branch\\-misses / branches"},
  {"MetricName": "mixed", "MetricExpr": "branch\\-misses / instructions"},
  {"MetricName": "faults", "MetricExpr": "page\\-faults / instructions / duration_time"},
  {"MetricName": "apart", "MetricExpr": "context\\-switches / cpu\\-migrations", "MetricConstraint": "NO_GROUP_EVENTS"},
  {"MetricName": "too_big", "MetricExpr": "cache\\-misses / (cache\\-references + bus\\-cycles)"},
  {"MetricName": "adopts", "MetricExpr": "cpu\\-migrations / task\\-clock"},
  {"MetricName": "watched", "MetricExpr": "major\\-faults / minor\\-faults", "MetricConstraint": "NO_GROUP_EVENTS_NMI"},
  {"MetricName": "unknown", "MetricExpr": "no_such_event + 1"}
])json";

TEST(MetricTable, AMetricsEventsAreCountedTogetherEachOnce) {
  const MetricTable table = MetricTable::from_json(kGroupedTable, "test");
  MetricGrouping rules;
  rules.budget = [] { return CounterBudget{2, {}, "two, for the test"}; };
  using Groups = std::vector<std::vector<std::string>>;
  EXPECT_EQ(planned_groups(table, rules),
            (Groups{{"instructions", "cycles", "page-faults"},  // ipc's, then cpi's; faults' joined (no counter)
                    {"branch-misses", "branches"},              // not joined: 4 would not fit on 2
                    {"context-switches"},                       // NO_GROUP_EVENTS
                    {"cache-misses"},                           // 3 do not fit on 2: apart
                    {"cache-references"},
                    {"bus-cycles"},
                    {"cpu-migrations", "task-clock"},  // the lone cpu-migrations taken in
                    {"major-faults", "minor-faults"},
                    {"unknown no_such_event"}}));
  // With the NMI watchdog on, NO_GROUP_EVENTS_NMI's events alone.
  rules.nmi_watchdog = true;
  const Groups watched = planned_groups(table, rules);
  EXPECT_EQ(watched.at(7), (std::vector<std::string>{"major-faults"}));
  EXPECT_EQ(watched.at(8), (std::vector<std::string>{"minor-faults"}));
  // No budget known: a group takes in only events that need no counter (faults' page-faults), and
  // ones that do make a group of their own.
  rules.budget = nullptr;
  const Groups unknown_budget = planned_groups(table, rules);
  EXPECT_EQ(unknown_budget.at(0), (std::vector<std::string>{"instructions", "cycles", "page-faults"}));
  EXPECT_EQ(unknown_budget.at(1), (std::vector<std::string>{"branch-misses", "branches"}));
  EXPECT_EQ(unknown_budget.at(2), (std::vector<std::string>{"context-switches"}));
  EXPECT_EQ(unknown_budget.at(3), (std::vector<std::string>{"cache-misses", "cache-references", "bus-cycles"}));
  // --metric-no-group: each event alone; an event counted anyway (-e's) is read there.
  rules.no_group = true;
  const Groups alone = planned_groups(table, rules, EventCatalog().parse("cycles"));
  EXPECT_EQ(alone.front(), (std::vector<std::string>{"instructions"}));
  for (const std::vector<std::string>& group : alone) {
    EXPECT_EQ(group.size(), 1u);
    EXPECT_NE(group.front(), "cycles");
  }
}

}  // namespace
}  // namespace perfmon
