// SPDX-License-Identifier: Apache-2.0
// PAPI's high-level API through libperfmon-papi, as its users run it: a program built against
// Debian's papi.h, its papi_hl_output/rank_N.json read field by field and summarised by Debian's
// papi_hl_output_writer; exact tracepoint counts per thread and region instance; PAPI's rules.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "emulated.hpp"
#include "process.hpp"

namespace perfmon::testing {
namespace {

constexpr const char* kGetppid = "syscalls:sys_enter_getppid";

class CliPapiHl : public ::testing::Test {
 protected:
  void SetUp() override {
    if (std::string(PAPI_HL_PROGRAM).empty())
      GTEST_SKIP() << "papi.h is missing (Debian's libpapi-dev; scripts/install-deps installs it)";
    dir_ = std::filesystem::temp_directory_path() / ("perfmon-papi-" + std::to_string(getpid()));
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  // The program under `prefix` (env and perfmon, where given), PAPI_EVENTS as given.
  Result program(const std::string& events, const std::string& mode = "", std::vector<std::string> prefix = {}) {
    std::vector<std::string> argv = {"/usr/bin/env", "PAPI_OUTPUT_DIRECTORY=" + dir_.string(), "PAPI_EVENTS=" + events};
    argv.insert(argv.end(), prefix.begin(), prefix.end());
    argv.push_back(PAPI_HL_PROGRAM);
    if (!mode.empty()) argv.push_back(mode);
    return run(argv);
  }
  // The one rank file written.
  nlohmann::json output() const {
    const std::filesystem::path output = dir_ / "papi_hl_output";
    std::vector<std::filesystem::path> files;
    if (std::filesystem::is_directory(output))
      for (const auto& entry : std::filesystem::directory_iterator(output)) files.push_back(entry.path());
    EXPECT_EQ(files.size(), 1u);
    if (files.size() != 1) return {};
    EXPECT_TRUE(files[0].filename().string().starts_with("rank_")) << files[0];
    std::ifstream in(files[0]);
    return nlohmann::json::parse(in);
  }

  std::filesystem::path dir_;
};

long long number(const nlohmann::json& value) {
  EXPECT_TRUE(value.is_string()) << value;  // PAPI writes every number as a string
  return value.is_string() ? std::stoll(value.get<std::string>()) : -1;
}

TEST_F(CliPapiHl, EveryThreadsRegionInstancesInPapisLayout) {
  Result r = program(std::string(kGetppid) + ",perf::TASK-CLOCK=delta");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "end before begin: -14\n");  // PAPI_EMISC: no region began yet
  const nlohmann::json data = output();
  ASSERT_TRUE(data.contains("threads")) << data;
  EXPECT_EQ(data["event_definitions"][kGetppid]["component"], "perf_event");
  EXPECT_EQ(data["event_definitions"]["perf::TASK-CLOCK"]["type"], "delta");
  ASSERT_EQ(data["threads"].size(), 9u);  // 8 and main, keyed 0..8
  std::vector<long long> work;
  for (std::size_t t = 0; t < 9; ++t) {
    const nlohmann::json& regions = data["threads"][std::to_string(t)]["regions"];
    for (const auto& [id, region] : regions.items()) {
      EXPECT_GT(number(region["real_time_nsec"].is_object() ? region["real_time_nsec"]["region_value"]
                                                            : region["real_time_nsec"]),
                0);
      ASSERT_TRUE(region.contains("cycles"));
      if (region["name"] == "work") {
        EXPECT_EQ(id, "0");
        EXPECT_EQ(region["parent_region_id"], "-1");
        const long long value = number(region[kGetppid]["region_value"]);
        EXPECT_EQ(number(region[kGetppid]["read_1"]), value - 1);  // read before the last call
        work.push_back(value);
      }
      if (region["name"] == "inner") {
        EXPECT_EQ(id, "2");
        EXPECT_EQ(region["parent_region_id"], "1");  // outer
        EXPECT_EQ(number(region[kGetppid]), 2);
      }
      if (region["name"] == "outer") {
        EXPECT_EQ(number(region[kGetppid]), 3);
      }
      if (region["name"] == "main") {
        EXPECT_EQ(number(region[kGetppid]), 5);
      }
    }
  }
  std::sort(work.begin(), work.end());
  EXPECT_EQ(work, (std::vector<long long>{101, 201, 301, 401, 501, 601, 701, 801}));
}

// Presets PAPI derives from several events (a formula of their counts), from PAPI's own table or
// the one PAPI_CSV_EVENT_FILE names (PAPI's variable), here one over tracepoints so that each
// region's value is exact: a sum less one of its terms, and three times one count.
TEST_F(CliPapiHl, DerivedPresetsAreTheirFormulaOfExactCounts) {
  const std::filesystem::path table = dir_ / "papi_events.csv";
  std::ofstream(table) << "CPU,skl\n"
                          "PRESET,PAPI_L1_TCM,DERIVED_POSTFIX,N0|N1|+|N1|-|,syscalls:sys_enter_getppid,"
                          "syscalls:sys_enter_getpid\n"
                          "PRESET,PAPI_L1_DCM,DERIVED_POSTFIX,N0|3|*|,syscalls:sys_enter_getppid\n";
  Result r = program("PAPI_L1_TCM,PAPI_L1_DCM", "",
                     {"PERF_CPUID=GenuineIntel-6-4E-3", "PAPI_CSV_EVENT_FILE=" + table.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json data = output();
  ASSERT_TRUE(data.contains("threads")) << data;
  EXPECT_TRUE(data["event_definitions"].contains("PAPI_L1_TCM")) << data["event_definitions"];
  std::vector<long long> sums, triples;
  for (const auto& [t, thread] : data["threads"].items())
    for (const auto& [id, region] : thread["regions"].items())
      if (region["name"] == "work") {
        sums.push_back(number(region["PAPI_L1_TCM"]["region_value"]));
        triples.push_back(number(region["PAPI_L1_DCM"]["region_value"]));
        EXPECT_EQ(number(region["PAPI_L1_DCM"]["read_1"]), 3 * (sums.back() - 1));  // read before the last call
      }
  std::sort(sums.begin(), sums.end());
  std::sort(triples.begin(), triples.end());
  EXPECT_EQ(sums, (std::vector<long long>{101, 201, 301, 401, 501, 601, 701, 801}));
  EXPECT_EQ(triples, (std::vector<long long>{303, 603, 903, 1203, 1503, 1803, 2103, 2403}));
}

// PAPI's Fortran calls (PAPIf_hl_region_begin, _read, _end, _stop): the regions exact, the read
// where the program made it; and PAPI_OUTPUT_DIRECTORY made where it is not there yet, as PAPI makes it.
TEST_F(CliPapiHl, FortranProgramsAndAnOutputDirectoryToMake) {
  if (std::string(PAPI_HL_FORTRAN_PROGRAM).empty()) GTEST_SKIP() << "gfortran is missing (Debian's gfortran)";
  const std::filesystem::path nested = dir_ / "not" / "there";
  Result r = run({"/usr/bin/env", "PAPI_OUTPUT_DIRECTORY=" + nested.string(), std::string("PAPI_EVENTS=") + kGetppid,
                  PAPI_HL_FORTRAN_PROGRAM});
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  EXPECT_EQ(r.out, "stop: 0\n");
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator(nested / "papi_hl_output"))
    files.push_back(entry.path());
  ASSERT_EQ(files.size(), 1u);
  std::ifstream in(files[0]);
  const nlohmann::json data = nlohmann::json::parse(in);
  const nlohmann::json& regions = data["threads"]["0"]["regions"];
  bool computation = false, tail = false;
  for (const auto& [id, region] : regions.items()) {
    if (region["name"] == "computation") {
      computation = true;
      EXPECT_EQ(number(region[kGetppid]["region_value"]), 1000) << region;
      EXPECT_EQ(number(region[kGetppid]["read_1"]), 400) << region;
    }
    if (region["name"] == "tail") {
      tail = true;
      EXPECT_EQ(number(region[kGetppid]), 10) << region;
    }
  }
  EXPECT_TRUE(computation && tail) << data;
  // A PAPI_OUTPUT_DIRECTORY that is a file: one sentence, nothing written.
  std::ofstream(dir_ / "a-file") << "x";
  r = run({"/usr/bin/env", "PAPI_OUTPUT_DIRECTORY=" + (dir_ / "a-file" / "under").string(),
           std::string("PAPI_EVENTS=") + kGetppid, PAPI_HL_FORTRAN_PROGRAM});
  EXPECT_NE(r.err.find("PAPI-HL Error: Cannot create PAPI_OUTPUT_DIRECTORY " + (dir_ / "a-file" / "under").string() +
                       ": Not a directory."),
            std::string::npos)
      << r.err;
}

TEST_F(CliPapiHl, DebiansWriterSummarisesTheExactCounts) {
  if (access("/usr/bin/papi_hl_output_writer", X_OK) != 0)
    GTEST_SKIP() << "papi_hl_output_writer is missing (Debian's papi-tools; scripts/install-deps installs it)";
  ASSERT_EQ(program(kGetppid).exit_code, 0);
  const std::string source = (dir_ / "papi_hl_output").string();
  // It writes papi_sum.json (or papi.json) where it runs, and prints it.
  Result r = run({"/bin/sh", "-c", "cd '" + dir_.string() + "' && papi_hl_output_writer --source '" + source + "'"});
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  const nlohmann::json summary = nlohmann::json::parse(r.out);
  EXPECT_EQ(summary["work"]["Region count"], 8);
  EXPECT_EQ(summary["work"][kGetppid]["total"], 3608);
  EXPECT_EQ(summary["work"][kGetppid]["min"], 101);
  EXPECT_EQ(summary["work"][kGetppid]["max"], 801);
  EXPECT_EQ(summary["work"]["Number of threads per rank"], 8);
  EXPECT_EQ(summary["inner"][kGetppid]["total"], 16);
  EXPECT_EQ(summary["main"][kGetppid], 5);
  for (const char* options : {"--type detail --notation raw", "--type detail", "--notation raw"}) {
    r = run(
        {"/bin/sh", "-c", "cd '" + dir_.string() + "' && papi_hl_output_writer --source '" + source + "' " + options});
    EXPECT_EQ(r.exit_code, 0) << options << r.err;
    EXPECT_FALSE(nlohmann::json::parse(r.out, nullptr, false).is_discarded()) << options;
  }
}

TEST_F(CliPapiHl, UnmatchedRegionsWriteNothingAndSaySo) {
  Result r = program(kGetppid, "unbalanced");
  ASSERT_EQ(r.exit_code, 0);
  EXPECT_NE(r.err.find("PAPI-HL Warning: Cannot generate output due to not matching regions"), std::string::npos)
      << r.err;
  EXPECT_FALSE(std::filesystem::exists(dir_ / "papi_hl_output"));
}

TEST_F(CliPapiHl, NestingStopsAtTenAndAnEndMustNameTheInnermost) {
  Result r = program(kGetppid, "deep");
  ASSERT_EQ(r.exit_code, 0);
  EXPECT_NE(r.out.find("deep: 1 refused"), std::string::npos) << r.out;  // main and 9 deep: 10 open
  EXPECT_TRUE(output()["threads"]["0"]["regions"].contains("9"));
  std::filesystem::remove_all(dir_ / "papi_hl_output");
  r = program(kGetppid, "mismatch");
  EXPECT_NE(r.out.find("end other: -1"), std::string::npos) << r.out;  // PAPI_EINVAL; main still ends
  EXPECT_EQ(number(output()["threads"]["0"]["regions"]["0"][kGetppid]), 5);
}

TEST_F(CliPapiHl, PresetsThisMachineCannotCountAreDroppedAndDefaultsStand) {
  Result r = run({"/usr/bin/env", "PAPI_OUTPUT_DIRECTORY=" + dir_.string(), "PAPI_HL_VERBOSE=1",
                  "PAPI_EVENTS=NO_SUCH_EVENT", PAPI_HL_PROGRAM});
  ASSERT_EQ(r.exit_code, 0);
  EXPECT_NE(r.out.find("PAPI-HL Warning: \"NO_SUCH_EVENT\" does not exist or is not supported on this machine."),
            std::string::npos)
      << r.out;
  const nlohmann::json definitions = output()["event_definitions"];
  // The default: PAPI_TOT_CYC where the PMU counts it, else the CPU time.
  EXPECT_TRUE(definitions.contains("PAPI_TOT_CYC") || definitions.contains("perf::TASK-CLOCK")) << definitions;
}

TEST_F(CliPapiHl, OnTheEmulatedCpuTheSameCodeCountsTheSameInstructions) {
  REQUIRE_QEMU();
  if (std::string(EMULATED_REGION).empty())
    GTEST_SKIP() << "this is the sanitizer build: a sanitized program does not run under qemu-user (its shadow memory)";
  std::vector<long long> inner;
  for (int attempt = 0; attempt < 2; ++attempt) {
    std::filesystem::remove_all(dir_ / "papi_hl_output");
    Result r = program("PAPI_TOT_INS", "", {PERFMON, "stat", "--emulate", "-e", "instructions", "--"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const nlohmann::json data = output();
    ASSERT_TRUE(data["event_definitions"].contains("PAPI_TOT_INS")) << data;
    for (const auto& [thread, regions] : data["threads"].items())
      for (const auto& [id, region] : regions["regions"].items())
        if (region["name"] == "inner") inner.push_back(number(region["PAPI_TOT_INS"]));
  }
  ASSERT_EQ(inner.size(), 16u);
  EXPECT_GT(inner.front(), 0);
  EXPECT_EQ(std::count(inner.begin(), inner.end(), inner.front()), 16) << ::testing::PrintToString(inner);
}

}  // namespace
}  // namespace perfmon::testing
