// SPDX-License-Identifier: Apache-2.0
// The metric tables perfmon ships (data/metrics/models, converted from Intel's and Arm's data):
// every metric of every table evaluated by the engine on its model's fixture counts
// (tests/data/metrics, written with the tables by scripts/generate-metric-tables) against the value
// computed from the source's own formula (Intel's expanded Formula, Arm's formula, in Python, not
// by this engine); top-down level 1 summing to 100 %; each table chosen by its CPU's id as perf's
// mapfile chooses.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "perfmon/metric_table.hpp"

namespace perfmon {
namespace {

struct Fixture {
  std::string model, cpuid;
  std::map<std::string, double> facts, counts;
  nlohmann::json expected;
};

std::vector<Fixture> fixtures() {
  std::vector<Fixture> all;
  for (const auto& entry : std::filesystem::directory_iterator(METRIC_FIXTURES)) {
    if (entry.path().extension() != ".json") continue;
    std::ifstream in(entry.path());
    const nlohmann::json document = nlohmann::json::parse(in);
    Fixture fixture{.model = document.at("model"),
                    .cpuid = document.at("cpuid"),
                    .facts = {},
                    .counts = {},
                    .expected = document.at("expected")};
    for (const auto& [name, value] : document.at("facts").items()) fixture.facts[name] = value.get<double>();
    for (const auto& [name, value] : document.at("counts").items()) fixture.counts[name] = value.get<double>();
    all.push_back(std::move(fixture));
  }
  std::sort(all.begin(), all.end(), [](const Fixture& a, const Fixture& b) { return a.model < b.model; });
  return all;
}

MetricFacts facts_of(const Fixture& fixture) {
  MetricFacts facts;
  facts.cpuid = fixture.cpuid;
  facts.literal = [&fixture](std::string_view literal) -> std::optional<double> {
    const auto found = fixture.facts.find(std::string(literal));
    if (found == fixture.facts.end()) return std::nullopt;
    return found->second;
  };
  return facts;
}

// Each metric's value by name, the whole table evaluated over the fixture's counts.
std::map<std::string, double> evaluate_all(const MetricTable& table, const Fixture& fixture) {
  std::vector<std::size_t> every(table.metrics().size());
  for (std::size_t i = 0; i < every.size(); ++i) every[i] = i;
  const MetricFacts facts = facts_of(fixture);
  const MetricSet set(table, every, facts);
  std::vector<double> values;
  for (const std::string& event : set.events()) {
    const auto count = fixture.counts.find(event);
    EXPECT_NE(count, fixture.counts.end()) << fixture.model << ": no fixture count for " << event;
    values.push_back(count == fixture.counts.end() ? std::nan("") : count->second);
  }
  std::map<std::string, double> by_name;
  for (const MetricResult& result : set.evaluate(values)) by_name[table.metrics()[result.metric].name] = result.value;
  return by_name;
}

TEST(ShippedMetricTables, EveryMetricOfEveryTableAgreesWithItsSourceFormula) {
  const std::vector<Fixture> all = fixtures();
  ASSERT_EQ(all.size(), 27u) << "21 Intel models and 6 Arm Neoverse ones";
  std::size_t checked = 0;
  for (const Fixture& fixture : all) {
    SCOPED_TRACE(fixture.model);
    ASSERT_EQ(MetricTable::shipped_model(fixture.cpuid), fixture.model) << fixture.cpuid;
    const MetricTable table = MetricTable::shipped(fixture.cpuid);
    ASSERT_EQ(table.metrics().size(), fixture.expected.size());
    const std::map<std::string, double> values = evaluate_all(table, fixture);
    for (const MetricDefinition& metric : table.metrics()) {
      const nlohmann::json& expected = fixture.expected.at(metric.name);
      const double value = values.at(metric.name);
      if (expected.is_null()) {
        EXPECT_TRUE(std::isnan(value)) << metric.name << " = " << value << ", the source's formula gives none";
      } else {
        const double want = expected.get<double>();
        EXPECT_NEAR(value, want, 1e-9 * std::max(1.0, std::fabs(want))) << metric.name << ": " << metric.expression;
      }
      ++checked;
    }
  }
  // Every metric of every table, none skipped.
  std::size_t shipped = 0;
  for (const Fixture& fixture : all) shipped += fixture.expected.size();
  EXPECT_EQ(checked, shipped);
  EXPECT_GT(checked, 4500u);
}

// perf's rule: the top-down level-1 categories share every slot, so they sum to 100 %. Arm's
// Neoverse N1 table has no top-down level 1: its first stage is cycle accounting (frontend and
// backend stalls, which overlap), left out.
TEST(ShippedMetricTables, TopDownLevelOneSumsToOneHundredPercent) {
  for (const Fixture& fixture : fixtures()) {
    SCOPED_TRACE(fixture.model);
    const MetricTable table = MetricTable::shipped(fixture.cpuid);
    const std::string level_one = table.topdown_group(1);
    if (fixture.model == "clearwaterforest") {
      EXPECT_EQ(level_one, "") << "Intel's table for it has no top-down metrics";
      continue;
    }
    ASSERT_EQ(level_one, "TopdownL1");
    if (fixture.model == "neoverse-n1") continue;
    const std::map<std::string, double> values = evaluate_all(table, fixture);
    double sum = 0;
    std::size_t categories = 0;
    for (const std::size_t index : table.select(level_one)) {
      sum += values.at(table.metrics()[index].name);
      ++categories;
    }
    EXPECT_EQ(categories, 4u);
    EXPECT_NEAR(sum, 100.0, 1e-9);
  }
}

// The mapfile's rows as perf reads them: a stepping range (Skylake-SP against Cascade Lake), any
// stepping where the row names none, an arm64 part in a later variant and revision; no row for an
// unknown CPU, which then has only the common metrics.
TEST(ShippedMetricTables, ChosenByTheCpusIdAsPerfChooses) {
  EXPECT_EQ(MetricTable::shipped_model("GenuineIntel-6-55-4"), "skylakex");
  EXPECT_EQ(MetricTable::shipped_model("GenuineIntel-6-55-7"), "cascadelakex");
  EXPECT_EQ(MetricTable::shipped_model("GenuineIntel-6-8F-8"), "sapphirerapids");
  EXPECT_EQ(MetricTable::shipped_model("GenuineIntel-6-CF-2"), "emeraldrapids");
  EXPECT_EQ(MetricTable::shipped_model("0x00000000413fd0c1"), "neoverse-n1");  // r3p1
  EXPECT_EQ(MetricTable::shipped_model("0x00000000410fd490"), "neoverse-n2");
  EXPECT_EQ(MetricTable::shipped_model("AuthenticAMD-25-61-2"), "");
  EXPECT_TRUE(MetricTable::shipped("AuthenticAMD-25-61-2").metrics().empty());
  EXPECT_TRUE(MetricTable::shipped("").metrics().empty());
}

// perf stat's Default group, as Intel's converter makes it: top-down level 1 on models whose PMU has
// the perf metrics (Ice Lake on), level 2 too on Sapphire Rapids and its successors, none on
// Skylake; and Intel's MetricConstraint carried over.
TEST(ShippedMetricTables, PerfStatsDefaultTopDownLevelsAndConstraints) {
  auto defaults = [](const std::string& cpuid) {
    std::set<std::string> names;
    const MetricTable table = MetricTable::shipped(cpuid);
    for (const MetricDefinition& metric : table.metrics())
      if (std::find(metric.groups.begin(), metric.groups.end(), "Default") != metric.groups.end())
        names.insert(metric.name);
    return names;
  };
  const std::set<std::string> level_one = {"tma_backend_bound", "tma_bad_speculation", "tma_frontend_bound",
                                           "tma_retiring"};
  EXPECT_EQ(defaults("GenuineIntel-6-7E-5"), level_one);  // Ice Lake
  const std::set<std::string> sapphire = defaults("GenuineIntel-6-8F-4");
  EXPECT_EQ(sapphire.size(), 12u);
  EXPECT_TRUE(std::includes(sapphire.begin(), sapphire.end(), level_one.begin(), level_one.end()));
  EXPECT_TRUE(sapphire.contains("tma_memory_bound"));
  EXPECT_TRUE(defaults("GenuineIntel-6-4E-3").empty());  // Skylake: no perf metrics
  const MetricTable sapphire_table = MetricTable::shipped("GenuineIntel-6-8F-4");
  EXPECT_EQ(sapphire_table.metrics()[*sapphire_table.find("tma_lock_latency")].constraint, "NO_GROUP_EVENTS");
  EXPECT_EQ(sapphire_table.metrics()[*sapphire_table.find("tma_retiring")].constraint, "");
}

}  // namespace
}  // namespace perfmon
