// SPDX-License-Identifier: Apache-2.0
// What the tests of perfmon report, script and the pictures share: a temporary directory with a
// perf.data in it, the worker's call tree recorded there, and readers of the report's rows.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "process.hpp"

namespace perfmon::testing {

namespace fs = std::filesystem;

class Report : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/perfmon-report-XXXXXX";
    dir_ = mkdtemp(pattern);
    file_ = (dir_ / "perf.data").string();
  }
  void TearDown() override {
    if (!dir_.empty()) fs::remove_all(dir_);
  }
  // The worker's call tree sampled on every getppid: 300 calls under perfmon_branch_a, 100 under b.
  void record_call_tree() const {
    Result r = run({PERFMON, "record", "-q", "-g", "-e", "syscalls:sys_enter_getppid", "-c", "1", "-o", file_, "--",
                    WORKER, "tree-getppid", "100"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }
  std::string report(std::vector<std::string> args) const {
    args.insert(args.begin(), {PERFMON, "report", "-i", file_});
    Result r = run(args);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.err, "");
    return r.out;
  }

  // Debian's perf records the worker's call tree of `iterations` on cpu-clock into file_, then
  // runs `perf COMMAND -i file_ OPTIONS...` on it.
  Result perf_on_recorded_tree(const std::string& iterations, const std::string& command,
                               const std::vector<std::string>& options) const {
    Result recorded =
        run({"/usr/bin/perf", "record", "-q", "-e", "cpu-clock", "-o", file_, "--", WORKER, "tree", iterations});
    EXPECT_EQ(recorded.exit_code, 0) << recorded.err;
    std::vector<std::string> args = {"/usr/bin/perf", command, "-i", file_};
    args.insert(args.end(), options.begin(), options.end());
    Result perf = run(args);
    EXPECT_EQ(perf.exit_code, 0) << perf.err;
    return perf;
  }
  static bool have_perf() { return access("/usr/bin/perf", X_OK) == 0; }

  fs::path dir_;
  std::string file_;
};

// The samples of collapsed stacks that end in the worker's getppid under perfmon_branch_a and
// under perfmon_branch_b, called from main.
inline std::pair<std::uint64_t, std::uint64_t> samples_under_branches(const std::string& folded) {
  std::uint64_t under_a = 0, under_b = 0;
  std::istringstream lines(folded);
  for (std::string line; std::getline(lines, line);) {
    const std::uint64_t samples = std::stoull(line.substr(line.rfind(' ') + 1));
    if (line.find(";main;perfmon_branch_a;perfmon_getppid_leaf;syscall ") != std::string::npos) under_a += samples;
    if (line.find(";main;perfmon_branch_b;perfmon_getppid_leaf;syscall ") != std::string::npos) under_b += samples;
  }
  return {under_a, under_b};
}

// "    98.20%  perfmon-test-wo  ...  [.] perfmon_spin" -> {"perfmon_spin", 98.2}, for rows above 1%.
inline std::map<std::string, double> top_symbols(const std::string& table) {
  std::map<std::string, double> shares;
  std::istringstream rows(table);
  for (std::string row; std::getline(rows, row);) {
    if (row.empty() || row[0] == '#' || row.find('%') == std::string::npos || row.find("] ") == std::string::npos)
      continue;
    const double share = std::stod(row);
    if (share >= 1.0) shares[row.substr(row.find("] ") + 2)] += share;
  }
  return shares;
}

}  // namespace perfmon::testing
