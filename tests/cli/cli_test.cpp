// SPDX-License-Identifier: Apache-2.0
// perfmon as a user runs it: exact counts through the CLI, exit codes, signals, output shapes.
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "perfmon/catalog.hpp"
#include "perfmon/probe.hpp"
#include "process.hpp"
#include "stat_command_line.hpp"

namespace perfmon::testing {
namespace {

TEST(CliStat, CountsTheCommandExactly) {
  Result r = run(stat({"-x,", "-e", "syscalls:sys_enter_getppid", "--", WORKER, "getppid", "1000"}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(csv_values(r.err, "syscalls:sys_enter_getppid"), std::vector<long long>{1000});
}

TEST(CliStat, InheritedThreadsAddUp) {
  Result r = run(stat({"-x,", "-e", "syscalls:sys_enter_getppid", "--", WORKER, "getppid", "1000", "--threads", "4"}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(csv_values(r.err, "syscalls:sys_enter_getppid"), std::vector<long long>{4000});
}

TEST(CliStat, ForkedChildFollowsInherit) {
  Result with =
      run(stat({"-x,", "-e", "syscalls:sys_enter_getppid", "--", WORKER, "getppid", "1000", "--fork-child", "250"}));
  Result without = run(stat({"-x,", "--no-inherit", "-e", "syscalls:sys_enter_getppid", "--", WORKER, "getppid", "1000",
                             "--fork-child", "250"}));
  EXPECT_EQ(csv_values(with.err, "syscalls:sys_enter_getppid"), std::vector<long long>{1250}) << with.err;
  EXPECT_EQ(csv_values(without.err, "syscalls:sys_enter_getppid"), std::vector<long long>{1000}) << without.err;
}

TEST(CliStat, SystemWideCountsTheCommand) {
  Result r = run(stat({"-a", "-x,", "-e", "syscalls:sys_enter_getppid", "--", WORKER, "getppid", "1000"}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto values = csv_values(r.err, "syscalls:sys_enter_getppid");
  ASSERT_EQ(values.size(), 1u) << r.err;
  EXPECT_GE(values[0], 1000);
  EXPECT_LE(values[0], 1005);  // a stray getppid() elsewhere on the machine
}

TEST(CliStat, PerCpuRowsWithNoAggr) {
  Result r = run(stat({"-a", "-A", "-x,", "-e", "task-clock", "--", WORKER, "sleep", "10"}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto lines = lines_of(r.err);
  EXPECT_EQ(lines.size(), static_cast<std::size_t>(sysconf(_SC_NPROCESSORS_ONLN))) << r.err;
  EXPECT_EQ(lines.at(0).rfind("CPU", 0), 0u);
}

// A worker whose 4 threads exist and wait for a line on stdin.
struct WaitingWorker {
  Process process{{WORKER, "getppid", "1000", "--threads", "4", "--wait-stdin"}};
  std::string pid;
  WaitingWorker() {
    std::string ready = process.read_stdout_until("\n");
    pid = ready.substr(ready.find(' ') + 1, ready.find('\n') - ready.find(' ') - 1);
  }
  // Runs perfmon with `args` (which must include -v), lets the worker go once counting has
  // started, and returns perfmon's result after the worker has exited.
  Result measure(std::vector<std::string> args) {
    Process perfmon(stat(std::move(args)));
    perfmon.read_stderr_until("counting started");
    process.write_stdin("go\n");
    process.wait();
    return perfmon.wait();
  }
};

TEST(CliStat, AttachesToARunningProcessUntilItExits) {
  WaitingWorker worker;
  Result r = worker.measure({"-v", "-x,", "-p", worker.pid, "-e", "syscalls:sys_enter_getppid"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(csv_values(r.err, "syscalls:sys_enter_getppid"), std::vector<long long>{4000}) << r.err;
}

TEST(CliStat, EventSetsOnAnAttachedProcess) {
  // Four threads of 1,000 getppid calls each, counted in two sets that take turns every 100 calls
  // of the process; perfmon switches from its own process, so only the structure is certain.
  WaitingWorker worker;
  Result r = worker.measure({"-v", "-p", worker.pid, "--sets", "syscalls:sys_enter_getppid;syscalls:sys_enter_getppid",
                             "--switch", "syscalls:sys_enter_getppid:100"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("set0 "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("set1 "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(" switches; "), std::string::npos) << r.err;
}

// Threads of the target come and go while perfmon attaches: one that exits between the listing and
// the opening is left out, and the attach never fails for it (it failed about one run in seven).
TEST(CliStat, AttachSurvivesThreadsThatComeAndGo) {
  Process worker({WORKER, "churn", "20000"});
  std::string ready = worker.read_stdout_until("\n");
  const std::string pid = ready.substr(ready.find(' ') + 1, ready.find('\n') - ready.find(' ') - 1);
  for (int attempt = 0; attempt < 30; ++attempt) {
    Process perfmon(stat({"-v", "-x,", "-p", pid, "-e", "syscalls:sys_enter_getppid,task-clock"}));
    perfmon.read_stderr_until("counting started");
    perfmon.signal(SIGINT);
    Result r = perfmon.wait();
    ASSERT_EQ(r.exit_code, 0) << "attempt " << attempt << ": " << r.err;
    ASSERT_NE(r.err.find(",syscalls:sys_enter_getppid,"), std::string::npos) << r.err;
  }
  worker.signal(SIGKILL);
}

TEST(CliStat, PerThreadShowsEachThread) {
  WaitingWorker worker;
  Result r = worker.measure({"-v", "-x,", "--per-thread", "-p", worker.pid, "-e", "syscalls:sys_enter_getppid"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::vector<long long> per_thread;
  for (const std::string& line : lines_of(r.err)) {
    auto fields = fields_of(line);
    if (fields.size() > 3 && fields[3] == "syscalls:sys_enter_getppid") {
      EXPECT_EQ(fields[0].rfind("perfmon-test-wo-", 0), 0u) << line;  // comm-tid
      per_thread.push_back(std::stoll(fields[1]));
    }
  }
  EXPECT_EQ(per_thread, (std::vector<long long>{0, 1000, 1000, 1000, 1000})) << r.err;
}

// -A and --per-thread hold in interval mode too (they were ignored there): each interval has a row
// per CPU, or per thread, and each thread's intervals add up to its exact count.
TEST(CliStat, IntervalsKeepOneRowPerCpuWithNoAggr) {
  Result r = run(stat({"-a", "-A", "-I", "100", "-x,", "-e", "task-clock", "--", WORKER, "sleep", "350"}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::map<std::string, std::set<std::string>> cpus_by_stamp;
  for (const std::string& line : lines_of(r.err)) {
    const auto fields = fields_of(line);
    ASSERT_GE(fields.size(), 5u) << line;
    EXPECT_EQ(fields[1].rfind("CPU", 0), 0u) << line;
    cpus_by_stamp[fields[0]].insert(fields[1]);
  }
  EXPECT_GE(cpus_by_stamp.size(), 3u) << r.err;
  for (const auto& [stamp, cpus] : cpus_by_stamp)
    EXPECT_EQ(cpus.size(), static_cast<std::size_t>(sysconf(_SC_NPROCESSORS_ONLN))) << stamp << "\n" << r.err;
}

TEST(CliStat, IntervalsKeepOneRowPerThreadWithPerThread) {
  WaitingWorker worker;
  Result r =
      worker.measure({"-v", "-x,", "-I", "100", "--per-thread", "-p", worker.pid, "-e", "syscalls:sys_enter_getppid"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::map<std::string, long long> per_thread;
  for (const std::string& line : lines_of(r.err)) {
    const auto fields = fields_of(line);
    if (fields.size() > 4 && fields[4] == "syscalls:sys_enter_getppid") {
      EXPECT_EQ(fields[1].rfind("perfmon-test-wo-", 0), 0u) << line;
      per_thread[fields[1]] += std::stoll(fields[2]);
    }
  }
  std::vector<long long> totals;
  for (const auto& [thread, total] : per_thread) totals.push_back(total);
  std::sort(totals.begin(), totals.end());
  EXPECT_EQ(totals, (std::vector<long long>{0, 1000, 1000, 1000, 1000})) << r.err;
}

TEST(CliStat, CountsOneThreadWithTid) {
  WaitingWorker worker;
  // The worker's threads have the next ids after its pid; take the first one that exists.
  std::string tid;
  for (const auto& entry : std::filesystem::directory_iterator("/proc/" + worker.pid + "/task"))
    if (entry.path().filename() != worker.pid) tid = entry.path().filename();
  ASSERT_FALSE(tid.empty());
  Result r = worker.measure({"-v", "-x,", "-t", tid, "-e", "syscalls:sys_enter_getppid"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(csv_values(r.err, "syscalls:sys_enter_getppid"), std::vector<long long>{1000}) << r.err;
}

TEST(CliStat, CountsOnlyTheListedCpus) {
  // The command runs on CPU 0 only: counted there, not on CPU 1.
  Result on = run(stat({"-C", "0", "-x,", "-e", "syscalls:sys_enter_getppid", "--", "/usr/bin/taskset", "-c", "0",
                        WORKER, "getppid", "1000"}));
  ASSERT_EQ(on.exit_code, 0) << on.err;
  auto values = csv_values(on.err, "syscalls:sys_enter_getppid");
  ASSERT_EQ(values.size(), 1u) << on.err;
  EXPECT_GE(values[0], 1000);
  EXPECT_LE(values[0], 1005);
  if (sysconf(_SC_NPROCESSORS_ONLN) < 2) GTEST_SKIP() << "one CPU: no other CPU to leave out";
  Result off = run(stat({"-C", "1", "-x,", "-e", "syscalls:sys_enter_getppid", "--", "/usr/bin/taskset", "-c", "0",
                         WORKER, "getppid", "1000"}));
  ASSERT_EQ(off.exit_code, 0) << off.err;
  EXPECT_LE(csv_values(off.err, "syscalls:sys_enter_getppid").at(0), 5) << off.err;
}

TEST(CliStat, CountsACgroup) {
  const std::string root = "/sys/fs/cgroup/unified";
  std::string base = std::filesystem::exists(root + "/cgroup.procs") ? root : "/sys/fs/cgroup";
  if (!std::filesystem::exists(base + "/cgroup.procs") || geteuid() != 0)
    GTEST_SKIP() << "needs root and a cgroup v2 hierarchy at /sys/fs/cgroup or /sys/fs/cgroup/unified";
  const std::string name = "perfmon-test-" + std::to_string(getpid());
  std::filesystem::create_directory(base + "/" + name);
  WaitingWorker worker;
  std::ofstream(base + "/" + name + "/cgroup.procs") << worker.pid << "\n";
  Process perfmon(stat({"-v", "-x,", "-G", name, "-e", "syscalls:sys_enter_getppid", "--", WORKER, "sleep", "100000"}));
  perfmon.read_stderr_until("counting started");
  worker.process.write_stdin("go\n");
  worker.process.wait();
  perfmon.signal(SIGINT);
  Result r = perfmon.wait();
  std::filesystem::remove(base + "/" + name);
  EXPECT_EQ(csv_values(r.err, "syscalls:sys_enter_getppid"), std::vector<long long>{4000}) << r.err;
}

TEST(CliStat, FullDiskFailsCleanly) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root to mount a small tmpfs";
  std::string dir = std::filesystem::temp_directory_path() / ("perfmon-full-" + std::to_string(getpid()));
  std::filesystem::create_directory(dir);
  ASSERT_EQ(run({"/bin/mount", "-t", "tmpfs", "-o", "size=4k", "tmpfs", dir}).exit_code, 0);
  run({"/bin/sh", "-c", "cat /dev/zero > " + dir + "/filler"});  // fills it
  Result r = run(stat({"-o", dir + "/out.txt", "-e", "task-clock", "--", WORKER, "exit", "0"}));
  std::vector<std::string> left;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) left.push_back(entry.path().filename());
  run({"/bin/umount", dir});
  std::filesystem::remove(dir);
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find("No space left on device; free some space or write elsewhere."), std::string::npos) << r.err;
  EXPECT_EQ(left, std::vector<std::string>{"filler"});  // no partial report left behind
}

TEST(CliStat, CountsASolarisCpcSpecification) {
  Result r = run(
      stat({"-x,", "-e", "cpc/pic0=syscalls:sys_enter_getppid,pic1=task-clock,sys/", "--", WORKER, "getppid", "500"}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(csv_values(r.err, "pic0=syscalls:sys_enter_getppid"), std::vector<long long>{500}) << r.err;
  EXPECT_NE(r.err.find(",msec,pic1=task-clock,"), std::string::npos) << r.err;
}

TEST(CliStat, PageFaultsAgreeWithPerf) {
  if (access("/usr/bin/perf", X_OK) != 0) GTEST_SKIP() << "Debian's linux-perf is not installed (/usr/bin/perf)";
  const std::vector<std::string> command = {WORKER, "touch", "3000"};
  auto perfmon_args = stat({"-x,", "-e", "page-faults", "--"});
  perfmon_args.insert(perfmon_args.end(), command.begin(), command.end());
  std::vector<std::string> perf_args = {"/usr/bin/perf", "stat", "-x,", "-e", "page-faults", "--"};
  perf_args.insert(perf_args.end(), command.begin(), command.end());
  Result ours = run(perfmon_args), theirs = run(perf_args);
  ASSERT_EQ(theirs.exit_code, 0) << theirs.err;
  long long a = csv_values(ours.err, "page-faults").at(0), b = csv_values(theirs.err, "page-faults").at(0);
  EXPECT_GE(a, 3000);
  // Same program, same kernel: the runs differ only by the loader's and libc's own faults.
  EXPECT_NEAR(static_cast<double>(a), static_cast<double>(b), 0.02 * static_cast<double>(b) + 10)
      << ours.err << theirs.err;
}

// perf's --filter: each applies to the last event of the -e before it, and the two halves of the
// page faults (by the write bit of the error code) add up to the unfiltered count exactly.
TEST(CliStat, FiltersSplitATracepointByItsFields) {
  Result r = run(stat({"-x,", "-e", "exceptions:page_fault_user", "-e",
                       "exceptions:page_fault_user,exceptions:page_fault_user", "--filter", "error_code & 2", "-e",
                       "exceptions:page_fault_user", "--filter", "!(error_code & 2)", "--", WORKER, "touch", "3000"}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::vector<long long> faults = csv_values(r.err, "exceptions:page_fault_user");
  ASSERT_EQ(faults.size(), 4u) << r.err;
  EXPECT_EQ(faults[1], faults[0]) << r.err;
  EXPECT_GE(faults[2], 3000) << r.err;
  EXPECT_LT(faults[3], faults[2]) << r.err;
  EXPECT_EQ(faults[2] + faults[3], faults[0]) << r.err;
}

TEST(CliStat, ExitStatusIsTheCommands) {
  Result r = run(stat({"-e", "task-clock", "--", WORKER, "exit", "7"}));
  EXPECT_EQ(r.exit_code, 7);
  EXPECT_NE(r.err.find("task-clock"), std::string::npos);
}

TEST(CliStat, CommandThatCannotStartExits127) {
  Result r = run(stat({"--", "/nonexistent/program"}));
  EXPECT_EQ(r.exit_code, 127);
  EXPECT_NE(r.err.find("cannot run '/nonexistent/program': No such file or directory"), std::string::npos) << r.err;
  EXPECT_EQ(lines_of(r.err).size(), 1u) << r.err;
}

TEST(CliStat, UsageErrorsExit129WithOneSentence) {
  for (const auto& args : std::vector<std::vector<std::string>>{
           {"--bogus"}, {"-I"}, {"-r", "zero", "true"}, {}, {"-p", "1", "-a"}, {"-x,", "-j", "true"}, {"-A", "true"}}) {
    Result r = run(stat(args));
    EXPECT_EQ(r.exit_code, 129) << r.err;
    EXPECT_NE(r.err.find("perfmon stat: "), std::string::npos) << r.err;
  }
}

TEST(CliStat, UnknownEventSuggestsAndExits129) {
  Result r = run(stat({"-e", "instructons", "true"}));
  EXPECT_EQ(r.exit_code, 129);
  EXPECT_NE(r.err.find("did you mean 'instructions'"), std::string::npos) << r.err;
}

TEST(CliStat, RejectedAttributeIsNamed) {
  if (!std::filesystem::exists("/sys/bus/event_source/devices/msr")) GTEST_SKIP() << "no msr PMU on this machine";
  // The msr PMU takes no exclusion bits: the kernel answers EINVAL, and perfmon finds which one.
  Result r = run(stat({"-e", "msr/tsc/:u", "--", WORKER, "exit", "0"}));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err,
            "perfmon stat: cannot open event 'msr/tsc/:u': the kernel rejects user/kernel/hypervisor filtering (:u, "
            ":k, :h) for it; drop the modifier or option that sets it.\n");
}

TEST(CliStat, InterruptStopsTheCommandAndStillPrints) {
  Process perfmon(stat({"-v", "-x,", "-e", "task-clock,syscalls:sys_enter_getppid", "--", WORKER, "sleep", "60000"}));
  perfmon.read_stderr_until("counting started");
  perfmon.signal(SIGINT);
  Result r = perfmon.wait();
  EXPECT_EQ(r.exit_code, 128 + SIGINT);  // the command's own status: killed by SIGINT
  EXPECT_EQ(csv_values(r.err, "syscalls:sys_enter_getppid").size(), 1u) << r.err;
  EXPECT_NE(r.err.find(",msec,task-clock,"), std::string::npos) << r.err;
}

// Only stat and record, which pass Ctrl-C and its kind on to a command, hold those signals: the
// other commands end at them, as any program does (here list, kept writing into a pipe nobody reads).
TEST(CliSignals, CommandsWithoutAWorkloadEndAtCtrlCAndTerm) {
  for (int signo : {SIGINT, SIGTERM, SIGHUP}) {
    SCOPED_TRACE(signo);
    Process perfmon({PERFMON, "list"});
    perfmon.read_stdout_until("\n");
    perfmon.signal(signo);
    EXPECT_EQ(perfmon.wait().exit_code, 128 + signo);
  }
}

TEST(CliStat, IntervalPrintsOneBlockPerInterval) {
  Result r = run(stat({"-I", "200", "-x,", "-e", "task-clock,page-faults", "--", WORKER, "sleep", "1000"}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::set<std::string> stamps;
  for (const std::string& line : lines_of(r.err)) stamps.insert(fields_of(line).at(0));
  // Five full intervals and the final partial one; a loaded machine may shift one either way.
  EXPECT_GE(stamps.size(), 5u) << r.err;
  EXPECT_LE(stamps.size(), 7u) << r.err;
  EXPECT_EQ(lines_of(r.err).size(), 2 * stamps.size());
}

TEST(CliStat, RepeatPrintsTheRelativeStddev) {
  Result table = run(stat({"-r", "5", "-e", "task-clock,page-faults", "--", WORKER, "touch", "100"}));
  ASSERT_EQ(table.exit_code, 0) << table.err;
  EXPECT_NE(table.err.find("(5 runs)"), std::string::npos) << table.err;
  EXPECT_NE(table.err.find("( +- "), std::string::npos) << table.err;
  Result csv = run(stat({"-r", "5", "-x,", "-e", "page-faults", "--", WORKER, "touch", "100"}));
  auto fields = fields_of(lines_of(csv.err).at(0));
  ASSERT_EQ(fields.size(), 8u) << csv.err;
  EXPECT_EQ(fields[5].back(), '%');
}

TEST(CliStat, JsonLinesParse) {
  Result r = run(stat({"-j", "-e", "task-clock,page-faults,cycles", "--", WORKER, "touch", "10"}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto lines = lines_of(r.err);
  ASSERT_EQ(lines.size(), 3u) << r.err;  // no footnote mixed into the JSON stream
  for (const std::string& line : lines) {
    auto object = nlohmann::json::parse(line);
    EXPECT_TRUE(object.contains("counter-value"));
    EXPECT_TRUE(object.contains("event-runtime"));
  }
}

TEST(CliStat, CsvHasPerfsSevenFields) {
  Result r = run(stat({"-x;", "--", WORKER, "touch", "10"}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto lines = lines_of(r.err);
  ASSERT_EQ(lines.size(), 8u) << r.err;  // perf's default events
  for (const std::string& line : lines) EXPECT_EQ(fields_of(line, ';').size(), 7u) << line;
}

TEST(CliStat, OutputFileIsWrittenWhole) {
  std::string path = std::filesystem::temp_directory_path() / ("perfmon-out-" + std::to_string(getpid()) + ".csv");
  Result r = run(stat({"-x,", "-o", path, "-e", "syscalls:sys_enter_getppid", "--", WORKER, "getppid", "77"}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_EQ(csv_values(text.str(), "syscalls:sys_enter_getppid"), std::vector<long long>{77});
  std::filesystem::remove(path);
  for (const auto& entry : std::filesystem::directory_iterator(std::filesystem::temp_directory_path()))
    EXPECT_EQ(entry.path().string().rfind(path + ".", 0), std::string::npos) << "left behind: " << entry.path();
}

TEST(CliStat, OutputFileInAMissingDirectoryFails) {
  Result r = run(stat({"-o", "/nonexistent/dir/out.txt", "--", WORKER, "exit", "0"}));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("cannot create '/nonexistent/dir/out.txt'"), std::string::npos) << r.err;
}

TEST(CliStat, DefaultTableExplainsUnsupportedEvents) {
  Result r = run(stat({"--", WORKER, "exit", "0"}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("Performance counter stats for"), std::string::npos);
  EXPECT_NE(r.err.find("task-clock"), std::string::npos);
  if (r.err.find("<not supported>") != std::string::npos) {
    EXPECT_NE(r.err.find("<not supported> cycles, instructions, branches, branch-misses: "), std::string::npos)
        << r.err;
  }
}

TEST(CliStat, EventSetsTakeTurnsAndShowTheirShareAndError) {
  // Two sets, switched after every 100 calls of the worker's getppid: each set counts part of the
  // calls, is scaled to the whole and carries a standard error; the lines below say each set's runs.
  Result r = run(stat({"-x,", "--sets", "syscalls:sys_enter_getppid,task-clock;syscalls:sys_enter_getppid", "--switch",
                       "syscalls:sys_enter_getppid:100", "--", WORKER, "getppid", "2000", "--pause-us", "100"}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::set<std::string> sets_seen;
  double share = 0;
  for (const std::string& line : lines_of(r.err)) {
    const std::vector<std::string> fields = fields_of(line);
    if (fields.size() < 7 || fields[3] != "syscalls:sys_enter_getppid") continue;
    sets_seen.insert(fields[0]);
    share += std::stod(fields[5]);
    EXPECT_LT(std::stod(fields[5]), 100.0) << line;
    // Scaled to the whole run; loosely: set0 also holds the program's start, which makes no calls
    // (a phase the other set never sees, which no extrapolation can know of).
    EXPECT_NEAR(std::stod(fields[1]), 2000, 1000) << line;
    EXPECT_FALSE(fields[6].empty()) << "no error column: " << line;
  }
  EXPECT_EQ(sets_seen, (std::set<std::string>{"set0", "set1"}));
  EXPECT_NEAR(share, 100.0, 0.5);
}

// perfmon switches the sets from its own process as their triggers overflow: a command that leaves
// it time at each trigger's overflow is counted in exact turns — 10 switches of 1,000 calls, 5,000 a
// set, run after run (perf stat -v's raw counts) — and a set with too few turns gets no error bar
// but a sentence. The time: 5 ms after every 1,000th call; perfmon's reaction, two ioctls that each
// interrupt the target's CPU, takes tens of microseconds on this VM, more under a loaded sanitizer
// run (a 200 us pause after every call lost one call in a run there).
TEST(CliStat, EventSetsSwitchExactlyOnACommandsOverflowsRunAfterRun) {
  for (int run_number = 0; run_number < 20; ++run_number) {
    Result r = run(stat({"-v", "--sets", "syscalls:sys_enter_getppid;syscalls:sys_enter_getppid", "--switch",
                         "syscalls:sys_enter_getppid:1000", "--", WORKER, "getppid", "10000", "--pause-us", "5000",
                         "--pause-every", "1000"}));
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.err.find("perfmon: set0 syscalls:sys_enter_getppid: 5000 "), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("perfmon: set1 syscalls:sys_enter_getppid: 5000 "), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("\n10 switches; "), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("set1: 5 runs, on the PMU"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("too few runs for an error bar (10 at least)"), std::string::npos) << r.err;
    EXPECT_EQ(r.err.find("( +-"), std::string::npos) << "an error bar from 5 turns: " << r.err;
  }
}

TEST(CliStat, EventSetsSwitchOnTime) {
  Result r = run(stat({"--sets", "task-clock;page-faults", "--switch", "1ms", "--", WORKER, "spin", "100"}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("set1 "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("set0: "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("switching after 1.000 ms on the PMU"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(" switches; '+- x%' is the standard error"), std::string::npos) << r.err;
  // 300 ms of CPU time: some 150 turns, far above the 10 runs a set needs for an error bar even where
  // a loaded machine delays perfmon's switches.
  Result json = run(stat({"-j", "--sets", "task-clock;page-faults", "--switch", "1ms", "--", WORKER, "spin", "300"}));
  ASSERT_EQ(json.exit_code, 0) << json.err;
  std::vector<std::string> sets;
  for (const std::string& line : lines_of(json.err)) {
    const nlohmann::json row = nlohmann::json::parse(line);
    sets.push_back(row.at("set").get<std::string>());
    EXPECT_FALSE(row.contains("thread")) << line;
    EXPECT_TRUE(row.contains("error")) << line;
  }
  EXPECT_EQ(sets, (std::vector<std::string>{"0", "1"}));
}

std::string instructions_times(int n) {
  std::string list;
  for (int i = 0; i < n; ++i) list += (i ? "," : "") + std::string("instructions");
  return list;
}

TEST(CliStat, PlanSplitsWhatDoesNotFitAndRunsNothing) {
  Result fits = run(stat({"--plan", "-e", "task-clock,{page-faults,syscalls:sys_enter_getppid}"}));
  ASSERT_EQ(fits.exit_code, 0) << fits.err;
  EXPECT_NE(fits.out.find("1 pass on "), std::string::npos) << fits.out;
  EXPECT_NE(fits.out.find("{page-faults (none), syscalls:sys_enter_getppid (none)}"), std::string::npos) << fits.out;
  // No CPU has 40 counters: several passes, each event on a counter of its own.
  Result split = run(stat({"--plan", "-e", instructions_times(40) + ",task-clock"}));
  ASSERT_EQ(split.exit_code, 0) << split.err;
  EXPECT_NE(split.out.find(" passes on "), std::string::npos) << split.out;
  EXPECT_NE(split.out.find("pass 2: "), std::string::npos) << split.out;
  EXPECT_NE(split.out.find("instructions (PMC0)"), std::string::npos) << split.out;
  EXPECT_NE(split.out.find("task-clock (none)  [every pass]"), std::string::npos) << split.out;
}

TEST(CliStat, StrictRefusesWhatWouldBeMultiplexed) {
  Result r = run(stat({"--strict", "-e", instructions_times(40), "true"}));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("strict mode: these events would be multiplexed: 40 need a hardware counter"), std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("perfmon stat --passes"), std::string::npos) << r.err;
  Result software = run(stat({"--strict", "-x,", "-e", "syscalls:sys_enter_getppid", "--", WORKER, "getppid", "100"}));
  ASSERT_EQ(software.exit_code, 0) << software.err;
  EXPECT_EQ(csv_values(software.err, "syscalls:sys_enter_getppid"), std::vector<long long>{100});
}

TEST(CliStat, PassesRunTheCommandOncePerPassAndCountEveryPassExactly) {
  // 40 instructions need several passes; the tracepoint takes no counter, so it is counted in every
  // pass: exactly 1000 calls each time, a spread of 0.
  Result r = run(stat({"-x,", "--passes", "-e", instructions_times(40) + ",syscalls:sys_enter_getppid", "--", WORKER,
                       "getppid", "1000"}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::vector<std::string> passes;
  for (const std::string& line : lines_of(r.err)) {
    const std::vector<std::string> fields = fields_of(line);
    if (fields.size() < 6 || fields[3] != "syscalls:sys_enter_getppid") continue;
    passes.push_back(fields[0]);
    EXPECT_EQ(fields[1], "1000") << line;
    EXPECT_EQ(fields[5], "100.00") << line;
  }
  Result table = run(stat(
      {"--passes", "-e", instructions_times(40) + ",syscalls:sys_enter_getppid", "--", WORKER, "getppid", "1000"}));
  ASSERT_EQ(table.exit_code, 0) << table.err;
  EXPECT_NE(table.err.find("passes, every event counted all the time of its pass"), std::string::npos) << table.err;
  if (probe_event(EventCatalog().resolve("instructions").attr).empty()) {
    ASSERT_GE(passes.size(), 2u) << r.err;
    EXPECT_EQ(passes[0], "pass1");
    EXPECT_EQ(passes[1], "pass2");
    EXPECT_NE(table.err.find("syscalls:sys_enter_getppid, counted in " + std::to_string(passes.size()) +
                             " passes: mean 1000.00, spread 0.00%"),
              std::string::npos)
        << table.err;
  } else {
    // Nothing of a pass can be counted here: the command runs once, for the tracepoint, and every
    // pass's events are said not supported, with the reason.
    EXPECT_EQ(passes, std::vector<std::string>{"pass1"}) << r.err;
    EXPECT_NE(table.err.find("\npass2, pass3"), std::string::npos) << table.err;
    EXPECT_NE(table.err.find(" not run: none of their events can be counted here."), std::string::npos) << table.err;
    EXPECT_NE(table.err.find("pass2           <not supported>      instructions"), std::string::npos) << table.err;
    std::size_t reasons = 0;
    for (const std::string& line : lines_of(table.err)) reasons += line.starts_with("<not supported> instructions");
    EXPECT_EQ(reasons, 1u) << "every pass's events explained, once: " << table.err;
  }
}

TEST(CliStat, CalibrateWarnsWhereStartingAProgramIsMostOfTheCount) {
  // An empty program makes no getppid calls and dozens of page faults: a worker making 10 calls
  // is warned about for its page faults, never for its calls.
  Result r = run(stat({"--calibrate", "-e", "page-faults,syscalls:sys_enter_getppid", "--", WORKER, "getppid", "10"}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("warning: region too small: starting and ending a program (an empty one, true, counts "),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("of this count of 'page-faults'"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("of this count of 'syscalls:sys_enter_getppid'"), std::string::npos) << r.err;
  Result big = run(stat({"--calibrate", "-e", "page-faults", "--", WORKER, "touch", "20000"}));
  ASSERT_EQ(big.exit_code, 0) << big.err;
  EXPECT_EQ(big.err.find("region too small"), std::string::npos) << big.err;
}

}  // namespace
}  // namespace perfmon::testing
