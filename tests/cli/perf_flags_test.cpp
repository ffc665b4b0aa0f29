// perf's own flags, as a perf user types them, taken with perf's meaning (issue 46): each checked on
// what it does, exactly where a count can be.
#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <string>
#include <vector>

#include "process.hpp"
#include "stat_command_line.hpp"

namespace perfmon::testing {
namespace {

TEST(PerfFlags, StatTimeoutStopsTheCommandAndPrintsTheCountsSoFar) {
  const auto began = std::chrono::steady_clock::now();
  const Result r = run(stat({"--timeout", "200", "-x,", "-e", "syscalls:sys_enter_getppid", "--", WORKER, "getppid",
                             "1000", "--pause-us", "1000000"}));
  EXPECT_LT(std::chrono::steady_clock::now() - began, std::chrono::seconds(20));  // not the worker's 1000 s
  EXPECT_EQ(r.exit_code, 128 + SIGTERM) << r.err;  // the command's own end, as a shell reports it
  const std::vector<long long> counted = csv_values(r.err, "syscalls:sys_enter_getppid");
  ASSERT_EQ(counted.size(), 1u) << r.err;
  EXPECT_GE(counted[0], 1);  // the calls made before the timeout
  EXPECT_LT(counted[0], 1000);
}

TEST(PerfFlags, StatIntervalCountPrintsThatManyIntervalsAndStops) {
  const Result r = run(stat({"-I", "50", "--interval-count", "3", "-x,", "-e", "task-clock", "--", "sleep", "30"}));
  EXPECT_EQ(r.exit_code, 128 + SIGTERM) << r.err;
  std::size_t intervals = 0;
  for (const std::string& line : lines_of(r.err))
    if (line.find("task-clock") != std::string::npos) ++intervals;
  EXPECT_EQ(intervals, 3u) << r.err;
  EXPECT_EQ(run(stat({"--interval-count", "3", "-e", "task-clock", "true"})).exit_code, 129);  // needs -I
}

TEST(PerfFlags, StatQuietPrintsNoCountsAndKeepsTheExitStatus) {
  const Result r = run(stat({"-q", "-e", "task-clock", "--", WORKER, "exit", "3"}));
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_EQ(r.err, "");
  EXPECT_EQ(r.out, "");
}

TEST(PerfFlags, StatBigNumIsTheTablesDefault) {
  const Result with = run(stat({"-B", "-e", "syscalls:sys_enter_getppid", "--", WORKER, "getppid", "1234"}));
  ASSERT_EQ(with.exit_code, 0) << with.err;
  EXPECT_NE(with.err.find("1,234"), std::string::npos) << with.err;
}

}  // namespace
}  // namespace perfmon::testing
