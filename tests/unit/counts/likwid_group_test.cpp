// SPDX-License-Identifier: Apache-2.0
// likwid's performance groups: every group file of the installed likwid (Debian's: 717) parses and
// its metrics compile in perf's language; a group's metrics evaluated over counts against values
// worked out here from its formulas; the CPU's likwid architecture; likwid's names as perf's events.
#include "perfmon/likwid_group.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "perfmon/error.hpp"

namespace perfmon {
namespace {

TEST(LikwidGroup, EveryInstalledGroupParsesAndCompiles) {
  const std::filesystem::path root = likwid_groups_dir();
  if (!std::filesystem::is_directory(root)) GTEST_SKIP() << "likwid is not installed (" << root << ")";
  std::size_t files = 0, metrics = 0;
  MetricFacts facts;
  for (const auto& arch : std::filesystem::directory_iterator(root)) {
    for (const std::string& name : likwid_group_names(root.string(), arch.path().filename().string())) {
      SCOPED_TRACE(arch.path().filename().string() + "/" + name);
      const LikwidGroup group = read_likwid_group(root.string(), arch.path().filename().string(), name);
      EXPECT_FALSE(group.description.empty());
      EXPECT_FALSE(group.counters.empty());
      const MetricTable table = likwid_group_metrics(group);
      EXPECT_EQ(table.metrics().size(), group.metrics.size());
      std::vector<std::size_t> every(table.metrics().size());
      for (std::size_t i = 0; i < every.size(); ++i) every[i] = i;
      EXPECT_NO_THROW(MetricSet(table, every, facts));
      metrics += table.metrics().size();
      ++files;
    }
  }
  // Debian bookworm's likwid 5.2.2 has 717 group files in 46 architectures.
  EXPECT_GE(files, 717u);
  EXPECT_GT(metrics, 5000u);
}

// Written for this test in likwid's format: counters with an option, a metric with a unit, a
// number in likwid's spelling (1.E-06), time and inverseClock, a name twice.
constexpr const char* kGroup = R"(SHORT Branch prediction miss rate/ratio

EVENTSET
FIXC0 INSTR_RETIRED_ANY
FIXC1 CPU_CLK_UNHALTED_CORE
PMC0  BR_INST_RETIRED_ALL_BRANCHES
PMC1  BR_MISP_RETIRED_ALL_BRANCHES
PMC2:EDGEDETECT  UOPS_ISSUED_STALL_CYCLES

METRICS
Runtime (RDTSC) [s] time
Runtime unhalted [s] FIXC1*inverseClock
Clock [MHz]  1.E-06*FIXC1/time
CPI  FIXC1/FIXC0
Branch misprediction ratio  PMC1/PMC0
Stalls  PMC2:EDGEDETECT
CPI  FIXC1/FIXC0

LONG
Formulas:
CPI = CPU_CLK_UNHALTED_CORE/INSTR_RETIRED_ANY
)";

TEST(LikwidGroup, MetricsAreItsFormulasOverPerfsEvents) {
  const LikwidGroup group = parse_likwid_group(kGroup, "BRANCH", "skylake", "BRANCH.txt");
  EXPECT_EQ(group.description, "Branch prediction miss rate/ratio");
  ASSERT_EQ(group.counters.size(), 5u);
  EXPECT_EQ(group.counters[4].counter, "PMC2:EDGEDETECT");
  EXPECT_EQ(group.counters[4].event, "UOPS_ISSUED_STALL_CYCLES");
  ASSERT_EQ(group.metrics.size(), 7u);
  EXPECT_EQ(group.metrics[2].name, "Clock");
  EXPECT_EQ(group.metrics[2].unit, "MHz");
  EXPECT_EQ(group.metrics[2].formula, "1.E-06*FIXC1/time");
  EXPECT_NE(group.long_description.find("CPI = CPU_CLK_UNHALTED_CORE/INSTR_RETIRED_ANY"), std::string::npos);

  const MetricTable table = likwid_group_metrics(group);
  ASSERT_EQ(table.metrics().size(), 7u);
  EXPECT_EQ(table.metrics()[6].name, "CPI (2)");
  EXPECT_EQ(table.metrics()[3].expression, "cycles/instructions");
  EXPECT_EQ(table.metrics()[2].expression, "1e-06*cycles/duration_time");
  EXPECT_EQ(table.metrics()[1].expression, "cycles*(1 / #system_tsc_freq)");
  // Intel's EVENT_UMASK as EVENT.UMASK where libpfm4's table for the model has it.
  EXPECT_EQ(table.metrics()[4].expression, "BR_MISP_RETIRED.ALL_BRANCHES/BR_INST_RETIRED.ALL_BRANCHES");
  EXPECT_NE(table.metrics()[5].expression.find(":e\\=1"), std::string::npos) << table.metrics()[5].expression;

  MetricFacts facts;
  facts.literal = [](std::string_view literal) -> std::optional<double> {
    if (literal == "#system_tsc_freq") return 2e9;
    return std::nullopt;
  };
  std::vector<std::size_t> every = {0, 1, 2, 3, 4};
  const MetricSet set(table, every, facts);
  std::map<std::string, double> counts = {{"duration_time", 2.0}, {"cycles", 3e9}, {"instructions", 6e9}};
  std::vector<double> values;
  for (const std::string& event : set.events())
    values.push_back(counts.count(event) ? counts[event] : event.find("MISP") != std::string::npos ? 5e6 : 1e8);
  const std::vector<MetricResult> results = set.evaluate(values);
  EXPECT_DOUBLE_EQ(results[0].value, 2.0);        // time
  EXPECT_DOUBLE_EQ(results[1].value, 1.5);        // 3e9 cycles at 2 GHz
  EXPECT_DOUBLE_EQ(results[2].value, 1500.0);     // MHz
  EXPECT_DOUBLE_EQ(results[3].value, 0.5);        // CPI
  EXPECT_DOUBLE_EQ(results[4].value, 5e6 / 1e8);  // misprediction ratio
}

TEST(LikwidGroup, RefusalsSaySo) {
  try {
    parse_likwid_group("SHORT x\nMETRICS\nA B\n", "X", "skylake", "X.txt");
    FAIL();
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find("X.txt: no EVENTSET"), std::string::npos) << error.what();
  }
  // A counter the EVENTSET does not define stays a name, which no event has.
  const LikwidGroup group =
      parse_likwid_group("SHORT x\nEVENTSET\nPMC0 A\nMETRICS\nBad PMC1/PMC0\n", "X", "skylake", "X");
  EXPECT_EQ(likwid_group_metrics(group).metrics().at(0).expression, "PMC1/A");
  try {
    read_likwid_group("/nonexistent", "skylake", "BRANCH");
    FAIL();
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find("install likwid"), std::string::npos) << error.what();
  }
}

TEST(LikwidGroup, TheCpusArchitectureAsLikwidNamesIt) {
  EXPECT_EQ(likwid_arch("GenuineIntel-6-55-4"), "skylakeX");
  EXPECT_EQ(likwid_arch("GenuineIntel-6-55-7"), "CLX");
  EXPECT_EQ(likwid_arch("GenuineIntel-6-9E-9"), "skylake");
  EXPECT_EQ(likwid_arch("GenuineIntel-6-6A-6"), "ICX");
  EXPECT_EQ(likwid_arch("AuthenticAMD-25-11-1"), "zen3");
  EXPECT_EQ(likwid_arch("AuthenticAMD-23-31-0"), "zen2");
  EXPECT_EQ(likwid_arch("0x00000000414fd0c1"), "arm8_n1");
  EXPECT_EQ(likwid_arch("0x00000000411fd070"), "arm8");  // Cortex-A57
  EXPECT_EQ(likwid_arch("GenuineIntel-6-CF-2"), "");     // no groups in likwid 5.2 for Emerald Rapids
  EXPECT_EQ(likwid_arch(""), "");
}

}  // namespace
}  // namespace perfmon
