// SPDX-License-Identifier: Apache-2.0
// perf's own flags, as a perf user types them, taken with perf's meaning (issue 46): each checked on
// what it does, exactly where a count can be.
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "perfmon/perf_data.hpp"
#include "perfmon/sampler.hpp"
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

// perf stat -n: nothing counted, the command timed (a kind of measurement of its own).
TEST(PerfFlags, StatNullRunTimesTheCommandAndCountsNothing) {
  const Result r = run(stat({"-n", "--", WORKER, "exit", "4"}));
  EXPECT_EQ(r.exit_code, 4);
  EXPECT_NE(r.err.find(" Performance counter stats for '"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(" seconds time elapsed\n\n"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(" seconds user\n"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("task-clock"), std::string::npos) << r.err;  // no default events
  EXPECT_EQ(run(stat({"-n", "-e", "task-clock", "true"})).exit_code, 129);
}

// -d, -dd, -ddd: perf's detailed events after those of -e (or the defaults), each level adding its
// own; where the machine cannot count one it says so in its row, as perf does.
TEST(PerfFlags, StatDetailedAddsPerfsCacheAndTlbEvents) {
  const std::vector<std::vector<std::string>> levels = {
      {"L1-dcache-loads", "L1-dcache-load-misses", "LLC-loads", "LLC-load-misses"},
      {"L1-icache-loads", "L1-icache-load-misses", "dTLB-loads", "dTLB-load-misses", "iTLB-loads", "iTLB-load-misses"},
      {"L1-dcache-prefetches", "L1-dcache-prefetch-misses"}};
  auto named = [](const std::string& csv) {
    std::vector<std::string> events;
    for (const std::string& line : lines_of(csv)) {
      const std::vector<std::string> fields = fields_of(line);
      if (fields.size() > 2) events.push_back(fields[2]);
    }
    return events;
  };
  std::vector<std::string> expected = {"syscalls:sys_enter_getppid"};
  for (std::size_t level = 0; level < levels.size(); ++level) {
    const std::string flag = "-" + std::string(level + 1, 'd');
    const Result r = run(stat({flag, "-x,", "-e", "syscalls:sys_enter_getppid", "--", WORKER, "getppid", "7"}));
    ASSERT_EQ(r.exit_code, 0) << r.err;
    expected.insert(expected.end(), levels[level].begin(), levels[level].end());
    EXPECT_EQ(named(r.err), expected) << flag << "\n" << r.err;
    EXPECT_EQ(csv_values(r.err, "syscalls:sys_enter_getppid"), std::vector<long long>{7}) << r.err;
  }
  EXPECT_EQ(run(stat({"-dddd", "true"})).exit_code, 129);
  EXPECT_EQ(run(stat({"-n", "-d", "true"})).exit_code, 129);
}

// The places sysfs gives each online CPU: "S0-D0-C1" per core, "S0" per socket, "S0-D0" per die,
// "N0" per node, and how many CPUs each holds.
std::map<std::string, int> cpu_places(const std::string& by) {
  std::map<std::string, int> places;
  for (long cpu = 0; cpu < sysconf(_SC_NPROCESSORS_CONF); ++cpu) {
    const std::string dir = "/sys/devices/system/cpu/cpu" + std::to_string(cpu);
    if (std::ifstream online(dir + "/online"); online) {
      int on = 1;
      online >> on;
      if (on == 0) continue;
    }
    if (::access(dir.c_str(), F_OK) != 0) continue;
    auto number = [&](const char* name) {
      std::ifstream in(dir + "/topology/" + name);
      long value = 0;
      in >> value;
      return std::to_string(value);
    };
    std::string node = "0";
    for (const auto& entry : std::filesystem::directory_iterator(dir))
      if (const std::string name = entry.path().filename().string(); name.starts_with("node") && name.size() > 4)
        node = name.substr(4);
    const std::string socket = "S" + number("physical_package_id"), die = socket + "-D" + number("die_id");
    ++places[by == "socket" ? socket : by == "die" ? die : by == "core" ? die + "-C" + number("core_id") : "N" + node];
  }
  return places;
}

// --per-socket, --per-die, --per-core, --per-node: a row per place with its CPUs (perf's CSV: place,
// CPUs, value, ...), the getppid calls of the worker summed over them exactly.
TEST(PerfFlags, StatSumsCpusBySocketDieCoreAndNode) {
  for (const std::string by : {"socket", "die", "core", "node"}) {
    const Result r =
        run(stat({"--per-" + by, "-a", "-x,", "-e", "syscalls:sys_enter_getppid", "--", WORKER, "getppid", "1000"}));
    ASSERT_EQ(r.exit_code, 0) << r.err;
    std::map<std::string, int> places;
    long long calls = 0;
    for (const std::string& line : lines_of(r.err)) {
      const std::vector<std::string> fields = fields_of(line);
      ASSERT_GE(fields.size(), 5u) << line;
      EXPECT_EQ(fields[4], "syscalls:sys_enter_getppid") << line;
      places[fields[0]] = std::stoi(fields[1]);
      calls += std::stoll(fields[2]);
    }
    EXPECT_EQ(places, cpu_places(by)) << by << "\n" << r.err;
    EXPECT_GE(calls, 1000) << r.err;
    EXPECT_LE(calls, 1005) << r.err;  // a stray getppid() elsewhere on the machine
  }
  const Result json = run(stat({"--per-core", "-a", "-j", "-e", "task-clock", "--", "true"}));
  ASSERT_EQ(json.exit_code, 0) << json.err;
  EXPECT_NE(json.err.find("{\"core\":\"S"), std::string::npos) << json.err;
  EXPECT_NE(json.err.find("\"aggregate-number\":"), std::string::npos) << json.err;
  EXPECT_EQ(run(stat({"--per-core", "-e", "task-clock", "true"})).exit_code, 129);  // needs -a, -C or -G
  EXPECT_EQ(run(stat({"--per-core", "-A", "-a", "-e", "task-clock", "true"})).exit_code, 129);
}

// --summary: -I's intervals, then the whole run's counts; --table: -r's runs one by one.
TEST(PerfFlags, StatSummaryAfterIntervalsAndTableOfRuns) {
  const Result summary =
      run(stat({"-I", "100", "--summary", "-e", "syscalls:sys_enter_getppid", "--", WORKER, "getppid", "300"}));
  ASSERT_EQ(summary.exit_code, 0) << summary.err;
  const std::size_t intervals = summary.err.find("#           time"),
                    total = summary.err.find(" Performance counter stats");
  ASSERT_NE(intervals, std::string::npos) << summary.err;
  ASSERT_NE(total, std::string::npos) << summary.err;
  EXPECT_LT(intervals, total);
  EXPECT_NE(summary.err.find("               300      syscalls:sys_enter_getppid", total), std::string::npos)
      << summary.err;
  const Result table = run(stat({"-r", "3", "--table", "-e", "task-clock", "--", "true"}));
  ASSERT_EQ(table.exit_code, 0) << table.err;
  const std::size_t listed = table.err.find("# Table of individual measurements:\n");
  ASSERT_NE(listed, std::string::npos) << table.err;
  std::size_t runs = 0;
  for (const std::string& line : lines_of(table.err.substr(listed))) runs += line.find(") #") != std::string::npos;
  EXPECT_EQ(runs, 3u) << table.err;
  EXPECT_NE(table.err.find("# Final result:\n"), std::string::npos) << table.err;
  EXPECT_EQ(run(stat({"--summary", "-e", "task-clock", "true"})).exit_code, 129);  // needs -I
  EXPECT_EQ(run(stat({"--table", "-e", "task-clock", "true"})).exit_code, 129);    // needs -r
}

// -g (--group): the events of -e in one group, as '{a,b}' would put them; -S: perfmon's own
// sync(2) comes before counting, so the command's count of sync calls is its own.
TEST(PerfFlags, StatGroupAndSync) {
  const Result grouped = run(stat({"--plan", "-g", "-e", "task-clock", "-e", "page-faults"}));
  ASSERT_EQ(grouped.exit_code, 0) << grouped.err;
  EXPECT_NE(grouped.out.find("{task-clock (none), page-faults (none)}"), std::string::npos) << grouped.out;
  const Result apart = run(stat({"--plan", "-e", "task-clock", "-e", "page-faults"}));
  EXPECT_EQ(apart.out.find("{task-clock"), std::string::npos) << apart.out;
  const Result synced = run(stat({"-S", "-x,", "-e", "syscalls:sys_enter_sync", "--", "true"}));
  ASSERT_EQ(synced.exit_code, 0) << synced.err;
  EXPECT_EQ(csv_values(synced.err, "syscalls:sys_enter_sync"), std::vector<long long>{0}) << synced.err;
}

// record --group: the file's events are one group (the second led by the first).
TEST(PerfFlags, RecordGroupPutsTheEventsInOneGroup) {
  const std::string file = ::testing::TempDir() + "perf-flags-group.data";
  const Result r = run({PERFMON, "record", "-q", "--group", "-e", "task-clock", "-e", "page-faults", "-o", file, "--",
                        WORKER, "getppid", "10"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  {
    // A group's members are enabled with their leader: only the leader is opened disabled.
    const PerfDataReader grouped(file);
    ASSERT_EQ(grouped.events().size(), 2u);
    EXPECT_EQ(grouped.events()[0].attr.disabled, 1u);
    EXPECT_EQ(grouped.events()[1].attr.disabled, 0u);
  }
  ASSERT_EQ(run({PERFMON, "record", "-q", "-e", "task-clock", "-e", "page-faults", "-o", file, "--", "true"}).exit_code,
            0);
  const PerfDataReader apart(file);
  EXPECT_EQ(apart.events()[1].attr.disabled, 1u);
  std::remove(file.c_str());
}

TEST(PerfFlags, StatBigNumIsTheTablesDefault) {
  const Result with = run(stat({"-B", "-e", "syscalls:sys_enter_getppid", "--", WORKER, "getppid", "1234"}));
  ASSERT_EQ(with.exit_code, 0) << with.err;
  EXPECT_NE(with.err.find("1,234"), std::string::npos) << with.err;
}

TEST(PerfFlags, AllUserAndAllKernelRestrictEveryEventAndNameIt) {
  const Result user = run(stat({"--all-user", "-x,", "-e", "task-clock", "--", WORKER, "getppid", "10"}));
  ASSERT_EQ(user.exit_code, 0) << user.err;
  EXPECT_NE(user.err.find(",task-clock:u,"), std::string::npos) << user.err;
  const Result kernel =
      run(stat({"--all-kernel", "-x,", "-e", "syscalls:sys_enter_getppid", "--", WORKER, "getppid", "10"}));
  ASSERT_EQ(kernel.exit_code, 0) << kernel.err;
  EXPECT_EQ(csv_values(kernel.err, "syscalls:sys_enter_getppid:k"), std::vector<long long>{10}) << kernel.err;
}

// The kernel's ceiling, which it lowers itself where sampling interrupts take too long.
std::uint64_t highest_rate() {
  std::ifstream highest("/proc/sys/kernel/perf_event_max_sample_rate");
  std::uint64_t rate = 0;
  highest >> rate;
  return rate;
}

TEST(PerfFlags, RecordTakesDataAddressesTimestampsCpusAndTheHighestFrequency) {
  const std::string file = ::testing::TempDir() + "perf-flags.data";
  const std::uint64_t rate_before = highest_rate();
  const Result r = run({PERFMON, "record", "-q", "-d", "-T", "--sample-cpu", "-F", "max", "--all-user", "-e",
                        "cpu-clock", "-o", file, "--", WORKER, "loop", "1000000"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const PerfDataReader recorded(file);
  ASSERT_EQ(recorded.events().size(), 1u);
  const perf_event_attr& attr = recorded.events()[0].attr;
  EXPECT_EQ(recorded.events()[0].name, "cpu-clock:u");
  EXPECT_TRUE(attr.sample_type & PERF_SAMPLE_ADDR);
  EXPECT_TRUE(attr.sample_type & PERF_SAMPLE_TIME);
  EXPECT_TRUE(attr.sample_type & PERF_SAMPLE_CPU);
  EXPECT_TRUE(attr.exclude_kernel);
  EXPECT_TRUE(attr.freq);
  EXPECT_TRUE(attr.sample_freq == rate_before || attr.sample_freq == highest_rate()) << attr.sample_freq;
  std::remove(file.c_str());
}

// The parts of a --switch-output recording in a directory: name -> the samples each holds.
std::map<std::string, std::uint64_t> recorded_parts(const std::filesystem::path& dir, const std::string& base) {
  std::map<std::string, std::uint64_t> parts;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    if (!name.starts_with(base + ".")) continue;
    struct Counted final : SampleHandler {
      std::uint64_t samples = 0;
      void sample(std::size_t, const Sample&) override { ++samples; }
    } counted;
    PerfDataReader(entry.path().string()).read(counted);
    parts[name] = counted.samples;
  }
  return parts;
}

// --switch-output: a file of its own for each part, named by when it began, on SIGUSR2, after a
// size, or after a time; every sample in exactly one part, and each part a whole file that
// perfmon report names the worker's function in.
TEST(PerfFlags, RecordSwitchOutputSplitsTheRecordingIntoWholeFiles) {
  const std::filesystem::path dir = ::testing::TempDir() + "perf-flags-switch-" + std::to_string(getpid());
  std::filesystem::create_directories(dir);
  const std::string base = (dir / "p.data").string();
  {
    Process recording({PERFMON, "record", "-v", "--switch-output", "-e", "syscalls:sys_enter_getppid", "-c", "1", "-o",
                       base, "--", WORKER, "getppid", "3000", "--pause-us", "200"});
    recording.read_stderr_until("perfmon: recording started\n");
    for (int part = 0; part < 2; ++part) {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
      recording.signal(SIGUSR2);
    }
    const Result r = recording.wait();
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }
  std::map<std::string, std::uint64_t> parts = recorded_parts(dir, "p.data");
  ASSERT_EQ(parts.size(), 3u) << ::testing::PrintToString(parts);
  std::uint64_t samples = 0;
  for (const auto& [name, count] : parts) {
    EXPECT_EQ(name.size(), std::string("p.data.").size() + 16) << name;  // YYYYmmddHHMMSScc
    samples += count;
    const Result report = run({PERFMON, "report", "-i", (dir / name).string(), "-q", "--sort", "sym"});
    EXPECT_EQ(report.exit_code, 0) << report.err;
    if (count != 0) {
      EXPECT_NE(report.out.find("[.] syscall"), std::string::npos) << name << ": " << report.out;
    }
  }
  EXPECT_EQ(samples, 3000u);

  // By size, the two newest kept.
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  Result sized = run({PERFMON, "record", "-q", "--switch-output=16K", "--switch-max-files", "2", "-e",
                      "syscalls:sys_enter_getppid", "-c", "1", "-o", base, "--", WORKER, "getppid", "3000"});
  ASSERT_EQ(sized.exit_code, 0) << sized.err;
  parts = recorded_parts(dir, "p.data");
  EXPECT_EQ(parts.size(), 2u) << ::testing::PrintToString(parts);
  EXPECT_FALSE(std::filesystem::exists(base));  // parts only, as perf
  EXPECT_EQ(run({PERFMON, "record", "--switch-output=5x", "true"}).exit_code, 129);
  EXPECT_EQ(run({PERFMON, "record", "--switch-output", "-o", "-", "true"}).exit_code, 129);
  std::filesystem::remove_all(dir);
}

TEST(PerfFlags, RecordsCompressionIsRefusedWithWhatToDoInstead) {
  const Result r = run({PERFMON, "record", "-z", "--", "true"});
  EXPECT_EQ(r.exit_code, 129);
  EXPECT_NE(r.err.find("perf's -z compresses the records"), std::string::npos) << r.err;
}

// Each row's samples beside its share, as perf report -n prints them: exact on 300 sampled calls,
// and the same table as perf's on the same file where perf is installed.
TEST(PerfFlags, ReportShowsEachRowsSamples) {
  const std::string file = ::testing::TempDir() + "perf-flags-n.data";
  ASSERT_EQ(run({PERFMON, "record", "-q", "-e", "syscalls:sys_enter_getppid", "-c", "1", "-o", file, "--", WORKER,
                 "getppid", "300"})
                .exit_code,
            0);
  const Result shown = run({PERFMON, "report", "-i", file, "-n", "--no-children", "--sort", "comm"});
  ASSERT_EQ(shown.exit_code, 0) << shown.err;
  EXPECT_NE(shown.out.find("# Overhead       Samples  Command"), std::string::npos) << shown.out;
  EXPECT_NE(shown.out.find("   100.00%           300  perfmon-test-wo"), std::string::npos) << shown.out;
  if (::access("/usr/bin/perf", X_OK) == 0) {
    const Result perfs = run({"/usr/bin/perf", "report", "-i", file, "--stdio", "-n", "--sort", "comm"});
    auto table = [](const std::string& text) {  // the rows and titles, perf's trailing blanks aside
      std::string lines;
      for (std::string line : lines_of(text)) {
        if (line.empty() || line == "#" || line.starts_with("# To display") || line.starts_with("# (Tip:")) continue;
        while (!line.empty() && line.back() == ' ') line.pop_back();
        lines += line + "\n";
      }
      return lines;
    };
    EXPECT_EQ(table(shown.out), table(perfs.out));
  }
  // Without call chains a row's children are its own samples: the Overhead column alone, as in perf.
  const Result children = run({PERFMON, "report", "-i", file, "-q", "--children", "--sort", "comm"});
  ASSERT_EQ(children.exit_code, 0) << children.err;
  EXPECT_EQ(children.out, "   100.00%  perfmon-test-wo\n");
  std::remove(file.c_str());
}

}  // namespace
}  // namespace perfmon::testing
