// SPDX-License-Identifier: Apache-2.0
// PAPI's preset table as perfmon ships it (data/papi/papi_events.csv): every preset of every CPU it
// names converts and compiles; a CPU's presets chosen as PAPI chooses them (blocks of CPU lines, a
// later line replacing an earlier one, PAPI_TOT_CYC and PAPI_TOT_INS added); each kind of
// derivation evaluated against values worked out here; the CPU's libpfm4 name from its id.
#include "perfmon/papi_presets.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "perfmon/error.hpp"

namespace perfmon {
namespace {

std::string shipped_csv() {
  std::ifstream in(PAPI_EVENTS_CSV);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST(PapiPresets, EveryPresetOfEveryCpuInPapisTableCompiles) {
  const std::string csv = shipped_csv();
  std::set<std::string> cpus;
  std::istringstream lines(csv);
  for (std::string line; std::getline(lines, line);)
    if (line.starts_with("CPU,")) cpus.insert(line.substr(4));
  ASSERT_GT(cpus.size(), 100u);
  std::size_t presets = 0;
  for (const std::string& cpu : cpus) {
    SCOPED_TRACE(cpu);
    const MetricTable table = papi_presets(csv, cpu);
    std::vector<std::size_t> every(table.metrics().size());
    for (std::size_t i = 0; i < every.size(); ++i) every[i] = i;
    EXPECT_NO_THROW(MetricSet(table, every, {}));
    presets += table.metrics().size();
  }
  EXPECT_GT(presets, 1500u);
}

std::map<std::string, double> evaluate(const MetricTable& table, const std::map<std::string, double>& counts) {
  std::vector<std::size_t> every(table.metrics().size());
  for (std::size_t i = 0; i < every.size(); ++i) every[i] = i;
  const MetricSet set(table, every, {});
  std::vector<double> values;
  for (const std::string& event : set.events()) values.push_back(counts.count(event) ? counts.at(event) : 0);
  std::map<std::string, double> by_name;
  for (const MetricResult& result : set.evaluate(values)) by_name[table.metrics()[result.metric].name] = result.value;
  return by_name;
}

TEST(PapiPresets, SkylakesPresetsAsPapisTableDerivesThem) {
  const MetricTable table = papi_presets(shipped_csv(), "skl");
  auto expression = [&](const char* name) { return table.metrics().at(table.find(name).value()).expression; };
  EXPECT_EQ(expression("PAPI_TOT_INS"), "INST_RETIRED:ANY_P");
  EXPECT_EQ(expression("PAPI_L1_TCM"), "L1D:REPLACEMENT + L2_RQSTS:ALL_CODE_RD");  // DERIVED_ADD
  EXPECT_EQ(expression("PAPI_L2_DCM"), "LLC_REFERENCES - L2_RQSTS:CODE_RD_MISS");  // DERIVED_SUB
  EXPECT_EQ(expression("PAPI_DP_OPS"),                                             // DERIVED_POSTFIX
            "((FP_ARITH:SCALAR_DOUBLE + (FP_ARITH:128B_PACKED_DOUBLE * 2)) + (FP_ARITH:256B_PACKED_DOUBLE * 4)) + "
            "(FP_ARITH:512B_PACKED_DOUBLE * 8)");
  const std::map<std::string, double> values = evaluate(table, {{"L1D:REPLACEMENT", 1000},
                                                                {"L2_RQSTS:ALL_CODE_RD", 30},
                                                                {"LLC_REFERENCES", 500},
                                                                {"L2_RQSTS:CODE_RD_MISS", 20},
                                                                {"FP_ARITH:SCALAR_DOUBLE", 1},
                                                                {"FP_ARITH:128B_PACKED_DOUBLE", 10},
                                                                {"FP_ARITH:256B_PACKED_DOUBLE", 100},
                                                                {"FP_ARITH:512B_PACKED_DOUBLE", 1000}});
  EXPECT_EQ(values.at("PAPI_L1_TCM"), 1030);
  EXPECT_EQ(values.at("PAPI_L2_DCM"), 480);
  EXPECT_EQ(values.at("PAPI_DP_OPS"), 1 + 20 + 400 + 8000);
  for (const MetricDefinition& preset : table.metrics()) EXPECT_EQ(preset.groups, std::vector<std::string>{"PAPI"});
}

// Written for this test in PAPI's format: two CPUs sharing a block, one of them redefining a preset
// later (the later line counts), a NOTE, a compound preset (its first event holds the value).
TEST(PapiPresets, BlocksOfCpusLaterLinesAndNotes) {
  constexpr const char* kCsv =
      "# a comment\n"
      "CPU,alpha\nCPU,beta\n"
      "PRESET,PAPI_TOT_CYC,NOT_DERIVED,CYCLES_A\n"
      "PRESET,PAPI_L1_DCM,NOT_DERIVED,MISSES_A,NOTE,\"Misses, of the first kind.\"\n"
      "#\nCPU,gamma\n"
      "PRESET,PAPI_L1_DCM,NOT_DERIVED,MISSES_G\n"
      "CPU,beta\n"
      " PRESET,PAPI_L1_DCM,DERIVED_CMPD,MISSES_B,OTHER_B\n";
  const MetricTable alpha = papi_presets(kCsv, "alpha");
  ASSERT_EQ(alpha.metrics().size(), 3u);  // PAPI_TOT_INS added, PAPI_TOT_CYC the table's
  EXPECT_EQ(alpha.metrics()[0].name, "PAPI_TOT_INS");
  EXPECT_EQ(alpha.metrics()[0].expression, "instructions");
  EXPECT_EQ(alpha.metrics()[1].expression, "CYCLES_A");
  EXPECT_EQ(alpha.metrics()[2].expression, "MISSES_A");
  EXPECT_EQ(alpha.metrics()[2].description, "Misses, of the first kind.");
  EXPECT_EQ(papi_presets(kCsv, "beta").metrics()[2].expression, "MISSES_B");
  EXPECT_EQ(papi_presets(kCsv, "gamma").metrics()[2].expression, "MISSES_G");
  const MetricTable none = papi_presets(kCsv, "delta");
  ASSERT_EQ(none.metrics().size(), 2u);  // every CPU has PAPI_TOT_CYC and PAPI_TOT_INS
  EXPECT_EQ(none.metrics()[1].expression, "cycles");
  try {
    papi_presets("CPU,x\nPRESET,PAPI_X,DERIVED_POSTFIX,N0|N1|+|,ONLY\n", "x");
    FAIL();
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find("papi_events.csv:2: the formula 'N0|N1|+|' names N1, no event"),
              std::string::npos)
        << error.what();
  }
}

TEST(PapiPresets, TheCpusNameInPapisTable) {
  EXPECT_EQ(papi_cpu("GenuineIntel-6-4E-3"), "skl");
  EXPECT_EQ(papi_cpu("GenuineIntel-6-55-7"), "clx");
  EXPECT_EQ(papi_cpu("GenuineIntel-6-6A-6"), "icx");
  EXPECT_EQ(papi_cpu("AuthenticAMD-25-1-1"), "amd64_fam19h_zen3");
  EXPECT_EQ(papi_cpu("AuthenticAMD-25-11-1"), "amd64_fam19h_zen4");
  EXPECT_EQ(papi_cpu("0x00000000411fd070"), "arm_ac57");
  EXPECT_EQ(papi_cpu(""), "");
  EXPECT_NE(papi_presets_for("0x00000000411fd070").find("PAPI_L1_DCM"), std::nullopt);
}

}  // namespace
}  // namespace perfmon
