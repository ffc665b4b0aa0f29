// SPDX-License-Identifier: Apache-2.0
// perfmon diff as a user runs it: a profile against itself is all zeros, two known profiles give
// the known changes exactly, and the table is perf diff's, row for row, on the same files.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "process.hpp"

namespace perfmon::testing {
namespace {

// Two recordings of the same two programs (the worker, and a copy of it named "other"), 300 and
// 100 getppid calls in the base, 100 and 300 in the new one.
class CliDiff : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = std::filesystem::temp_directory_path() / ("perfmon-diff-" + std::to_string(getpid()));
    std::filesystem::create_directories(dir_);
    std::filesystem::copy_file(WORKER, dir_ / "other");
    record("base.data", 300, 100);
    record("new.data", 100, 300);
  }
  static void TearDownTestSuite() { std::filesystem::remove_all(dir_); }
  // A recording that could not be made fails every test (gtest would count them skipped).
  void SetUp() override {
    if (!set_up_failure_.empty()) FAIL() << set_up_failure_;
  }
  static void record(const std::string& file, int worker_calls, int other_calls) {
    const std::string script = std::string("'") + WORKER + "' getppid " + std::to_string(worker_calls) + "; '" +
                               (dir_ / "other").string() + "' getppid " + std::to_string(other_calls);
    Result r = run({PERFMON, "record", "-q", "-e", "syscalls:sys_enter_getppid", "-c", "1", "-o",
                    (dir_ / file).string(), "--", "/bin/sh", "-c", script});
    if (r.exit_code != 0 && set_up_failure_.empty())
      set_up_failure_ = "perfmon record of " + file + " exited " + std::to_string(r.exit_code) + ": " + r.err;
  }
  static std::string path(const char* file) { return (dir_ / file).string(); }

  static std::filesystem::path dir_;
  static std::string set_up_failure_;
};
std::filesystem::path CliDiff::dir_;
std::string CliDiff::set_up_failure_;

// Lines without their trailing blanks (perf pads its last column; perfmon does not).
std::string trimmed_lines(const std::string& text) {
  std::string out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out += line + "\n";
  }
  return out;
}

TEST_F(CliDiff, AProfileAgainstItselfIsAllZeros) {
  Result r = run({PERFMON, "diff", "--sort", "comm,dso,sym", path("base.data"), path("base.data")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  int rows = 0;
  for (const std::string& line : lines_of(r.out)) {
    if (line.starts_with("#")) continue;
    EXPECT_NE(line.find("     +0.00%  "), std::string::npos) << line;
    ++rows;
  }
  EXPECT_GE(rows, 2);
}

TEST_F(CliDiff, KnownProfilesGiveTheKnownChanges) {
  Result r = run({PERFMON, "diff", "--json", "--sort", "comm", path("base.data"), path("new.data")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json diff = nlohmann::json::parse(r.out);
  ASSERT_EQ(diff["events"].size(), 1u);
  const nlohmann::json& event = diff["events"][0];
  EXPECT_EQ(event["event"], "syscalls:sys_enter_getppid");
  std::map<std::string, nlohmann::json> rows;
  for (const nlohmann::json& row : event["rows"]) rows[row["comm"]] = row;
  ASSERT_TRUE(rows.count("perfmon-test-wo") && rows.count("other")) << r.out;
  EXPECT_EQ(rows["perfmon-test-wo"]["base_period"], 300);
  EXPECT_EQ(rows["perfmon-test-wo"]["new_period"], 100);
  EXPECT_EQ(rows["other"]["base_period"], 100);
  EXPECT_EQ(rows["other"]["new_period"], 300);
  const double total = event["base_period"].get<double>();  // the same in both: the shell's calls too
  EXPECT_DOUBLE_EQ(rows["other"]["delta"].get<double>(), 100.0 * 200 / total);
  EXPECT_DOUBLE_EQ(rows["perfmon-test-wo"]["delta"].get<double>(), -100.0 * 200 / total);
  EXPECT_DOUBLE_EQ(rows["other"]["ratio"].get<double>(), 3.0);  // perf diff -c ratio: 300 / 100
  EXPECT_DOUBLE_EQ(rows["perfmon-test-wo"]["ratio"].get<double>(), 100.0 / 300);
  // -c wdiff:2,1: new period * 1 - base period * 2.
  r = run({PERFMON, "diff", "--json", "-c", "wdiff:2,1", "--sort", "comm", path("base.data"), path("new.data")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json weighted = nlohmann::json::parse(r.out);
  for (const nlohmann::json& row : weighted["events"][0]["rows"])
    if (row["comm"] == "other") {
      EXPECT_EQ(row["weighted_diff"], 300 - 2 * 100);
    }
  // The table: the largest change first.
  r = run({PERFMON, "diff", "--sort", "comm", path("base.data"), path("new.data")});
  const std::vector<std::string> lines = lines_of(r.out);
  ASSERT_GE(lines.size(), 7u) << r.out;
  EXPECT_NE(lines[5].find("-49.88%  perfmon-test-wo"), std::string::npos) << r.out;
  EXPECT_NE(lines[6].find("+49.88%  other"), std::string::npos) << r.out;
}

TEST_F(CliDiff, TheTableIsPerfDiffs) {
  if (access("/usr/bin/perf", X_OK) != 0) GTEST_SKIP() << "perf is missing (scripts/install-deps installs it)";
  // perf diff's own flags too: each -c computation, and -p's periods.
  for (const std::vector<std::string>& sort : {std::vector<std::string>{},
                                               {"--sort", "comm"},
                                               {"--sort", "dso,sym"},
                                               {"-c", "delta", "--sort", "comm"},
                                               {"-c", "ratio", "--sort", "comm"},
                                               {"-c", "wdiff:3,1", "--sort", "comm"},
                                               {"-p", "--sort", "comm"},
                                               {"-c", "ratio", "-p"},
                                               {"-c", "delta-abs", "-p", "--sort", "comm,dso,sym"}}) {
    std::vector<std::string> ours = {PERFMON, "diff"}, perfs = {"/usr/bin/perf", "diff"};
    for (const std::string& word : sort) {
      ours.push_back(word);
      perfs.push_back(word);
    }
    for (const char* file : {"base.data", "new.data"}) {
      ours.push_back(path(file));
      perfs.push_back(path(file));
    }
    Result mine = run(ours), theirs = run(perfs);
    ASSERT_EQ(mine.exit_code, 0) << mine.err;
    ASSERT_EQ(theirs.exit_code, 0) << theirs.err;
    EXPECT_EQ(trimmed_lines(mine.out), trimmed_lines(theirs.out)) << ::testing::PrintToString(sort);
  }
}

TEST_F(CliDiff, MistakesEndInOneSentence) {
  Result r = run({PERFMON, "diff", path("base.data"), path("missing.data")});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(lines_of(r.err).size(), 1u) << r.err;
  EXPECT_NE(r.err.find("missing.data"), std::string::npos) << r.err;
  r = run({PERFMON, "diff", path("base.data"), path("new.data"), path("new.data")});
  EXPECT_EQ(r.exit_code, 129);
  EXPECT_NE(r.err.find("perfmon diff compares two files: BASE and NEW"), std::string::npos) << r.err;
  r = run({PERFMON, "diff", "--sort", "srcline", path("base.data"), path("new.data")});
  EXPECT_EQ(r.exit_code, 129);
  r = run({PERFMON, "diff", "-c", "wdiff:2", path("base.data"), path("new.data")});
  EXPECT_EQ(r.exit_code, 129);
  EXPECT_NE(r.err.find("wdiff takes two whole weights, the base's and the new file's, such as 'wdiff:1,2'; not "
                       "'wdiff:2'."),
            std::string::npos)
      << r.err;
}

// perf record keeps the previous perf.data as perf.data.old, and perf diff with no files compares
// the two: the same here, in a directory of their own.
TEST_F(CliDiff, RecordKeepsThePreviousFileAsOldAndDiffComparesThemByDefault) {
  const std::filesystem::path here = dir_ / "default-files";
  std::filesystem::create_directories(here);
  const std::string in_here = "cd '" + here.string() + "' && ";
  auto recorded = [&](int calls) {
    return run({"/bin/sh", "-c",
                in_here + "'" + PERFMON + "' record -q -e syscalls:sys_enter_getppid -c 1 -- '" + WORKER +
                    "' getppid " + std::to_string(calls)});
  };
  const Result none = run({"/bin/sh", "-c", in_here + "'" + PERFMON + "' diff"});
  EXPECT_EQ(none.exit_code, 1);
  EXPECT_NE(none.err.find("there is no perf.data.old to compare perf.data with"), std::string::npos) << none.err;
  ASSERT_EQ(recorded(100).exit_code, 0);
  EXPECT_FALSE(std::filesystem::exists(here / "perf.data.old"));  // nothing to keep the first time
  const auto first_size = std::filesystem::file_size(here / "perf.data");
  ASSERT_EQ(recorded(300).exit_code, 0);
  EXPECT_EQ(std::filesystem::file_size(here / "perf.data.old"), first_size);
  const Result compared = run({"/bin/sh", "-c", in_here + "'" + PERFMON + "' diff --sort comm"});
  ASSERT_EQ(compared.exit_code, 0) << compared.err;
  EXPECT_NE(compared.out.find("# Baseline"), std::string::npos) << compared.out;
  // Where perf.data.old is not a regular file it is left alone, and that is said.
  std::filesystem::remove(here / "perf.data.old");
  ASSERT_EQ(::mkfifo((here / "perf.data.old").c_str(), 0600), 0);
  const Result beside_fifo = recorded(50);
  EXPECT_EQ(beside_fifo.exit_code, 0);
  EXPECT_TRUE(std::filesystem::is_fifo(here / "perf.data.old"));
  EXPECT_NE(beside_fifo.err.find("not kept as"), std::string::npos) << beside_fifo.err;
}

}  // namespace
}  // namespace perfmon::testing
