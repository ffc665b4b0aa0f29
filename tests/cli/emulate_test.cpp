// perfmon stat --emulate: the command on QEMU's emulated CPU, counted exactly through the CLI and
// the library, its forks, execs and threads included, every row marked; and its errors.
// perfmon record --emulate: sampled every N instructions, exactly, with callchains, into a
// perf.data file that perfmon and perf read.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <thread>

#include "perfmon/catalog.hpp"
#include "perfmon/emulated.hpp"
#include "perfmon/error.hpp"
#include "perfmon/session.hpp"
#include "perfmon/stat.hpp"
#include "perfmon/target.hpp"
#include "process.hpp"

namespace perfmon::testing {
namespace {

// qemu-user for this machine, or why the test is skipped.
std::string host_machine() {
  utsname name{};
  uname(&name);
  return name.machine;
}

bool have_qemu() {
  const char* path = std::getenv("PATH");
  std::istringstream directories(path != nullptr ? path : "");
  for (std::string directory; std::getline(directories, directory, ':');)
    if (access((directory + "/qemu-" + host_machine()).c_str(), X_OK) == 0) return true;
  return false;
}

#define REQUIRE_QEMU()                                                                                  \
  if (!have_qemu())                                                                                     \
  GTEST_SKIP() << "qemu-user is not installed (Debian's qemu-user; scripts/install-deps installs it): " \
                  "the emulated CPU cannot run"

std::vector<std::string> fields_of(const std::string& line) {
  std::vector<std::string> fields;
  std::istringstream in(line);
  for (std::string field; std::getline(in, field, ',');) fields.push_back(field);
  return fields;
}

Result emulated_stat(std::vector<std::string> args) {
  args.insert(args.begin(), {PERFMON, "stat", "--emulate"});
  return run(args);
}

// The CSV value of `event` in `perfmon stat --emulate -x, -e event -- command`; its row must end in
// the "emulated" field.
long long emulated_count(const std::vector<std::string>& command, const std::string& event = "instructions",
                         const std::vector<std::string>& options = {}) {
  std::vector<std::string> args = options;
  args.insert(args.end(), {"-x,", "-e", event, "--"});
  args.insert(args.end(), command.begin(), command.end());
  Result r = emulated_stat(args);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  for (const std::string& line : lines_of(r.err)) {
    std::vector<std::string> fields = fields_of(line);
    if (fields.size() < 3 || fields[2] != event) continue;
    EXPECT_EQ(fields.back(), "emulated") << line;
    return std::stoll(fields[0]);
  }
  ADD_FAILURE() << "no row for " << event << " in:\n" << r.err;
  return -1;
}

std::string loop(long iterations) {
  return std::to_string(iterations);
}

TEST(EmulatedStat, CountsTheCommandExactlyAndTheSameEachRun) {
  REQUIRE_QEMU();
  const long long one = emulated_count({EMULATED_LOOP, loop(1'000'000)});
  const long long two = emulated_count({EMULATED_LOOP, loop(2'000'000)});
  const long long three = emulated_count({EMULATED_LOOP, loop(3'000'000)});
  // A loop of 2N instructions: each million iterations adds exactly 2 million.
  EXPECT_EQ(two - one, 2'000'000);
  EXPECT_EQ(three - two, 2'000'000);
  EXPECT_EQ(emulated_count({EMULATED_LOOP, loop(1'000'000)}), one);
  // The emulated CPU runs user mode only: instructions:u is the same count.
  EXPECT_EQ(emulated_count({EMULATED_LOOP, loop(1'000'000)}, "instructions:u"), one);
}

TEST(EmulatedStat, CountsBranchesExactly) {
  REQUIRE_QEMU();
  // The loop's one branch per iteration; the footnote splits them by kind.
  const long long one = emulated_count({EMULATED_LOOP, loop(1'000'000)}, "branches");
  const long long two = emulated_count({EMULATED_LOOP, loop(2'000'000)}, "branches");
  EXPECT_EQ(two - one, 1'000'000);
  EXPECT_EQ(emulated_count({EMULATED_LOOP, loop(1'000'000)}, "branches:u"), one);
  Result r = emulated_stat({"--", EMULATED_LOOP, loop(1'000'000)});  // instructions and branches by default
  EXPECT_NE(r.err.find(" branches "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("branches by kind: "), std::string::npos) << r.err;
}

TEST(EmulatedStat, PredictsBranchesWithItsModel) {
  REQUIRE_QEMU();
  // The loop's branch is learnt: more iterations add no misses. A branch on a pseudo-random bit is
  // not: about half of its million more executions are missed.
  const long long steady = emulated_count({EMULATED_LOOP, loop(1'000'000)}, "branch-misses");
  EXPECT_EQ(emulated_count({EMULATED_LOOP, loop(2'000'000)}, "branch-misses"), steady);
  const long long once = emulated_count({EMULATED_LOOP, "random-branches", loop(1'000'000)}, "branch-misses");
  const long long twice = emulated_count({EMULATED_LOOP, "random-branches", loop(2'000'000)}, "branch-misses");
  EXPECT_GT(twice - once, 400'000);
  EXPECT_LT(twice - once, 600'000);
  EXPECT_EQ(emulated_count({EMULATED_LOOP, "random-branches", loop(1'000'000)}, "branch-misses"), once);
}

TEST(EmulatedStat, CountsLoadsAndStoresExactly) {
  REQUIRE_QEMU();
  // One load and one store per iteration of the memory loops: a 16-byte access, which QEMU makes
  // two 8-byte ones, counts once.
  for (const char* mode : {"memory", "wide-memory"})
    for (const char* event : {"L1-dcache-loads", "L1-dcache-stores"}) {
      const long long one = emulated_count({EMULATED_LOOP, mode, loop(1'000'000)}, event);
      const long long two = emulated_count({EMULATED_LOOP, mode, loop(2'000'000)}, event);
      EXPECT_EQ(two - one, 1'000'000) << mode << " " << event;
    }
}

// The cache model, with caches given as cachegrind takes them: a 32 KiB 8-way L1D and a 1 MiB
// 16-way LL of 64-byte lines. Each pass of strided-loads loads once from every line of its array.
long long cache_count(const std::string& array_bytes, long passes, const std::string& event) {
  return emulated_count({EMULATED_LOOP, "strided-loads", array_bytes, loop(passes)}, event,
                        {"--D1=32768,8,64", "--LL=1048576,16,64"});
}

TEST(EmulatedStat, CacheModelMissesEachLineOfAnArrayLargerThanItsCache) {
  REQUIRE_QEMU();
  // 256 KiB, 4,096 lines: larger than L1D, whose LRU sets the passes run through, so every load of
  // every pass misses it; smaller than the LL, where the lines stay after the first pass.
  for (const char* event : {"L1-dcache-load-misses", "LLC-loads"}) {
    const long long one = cache_count("262144", 1, event);
    EXPECT_EQ(cache_count("262144", 2, event) - one, 4'096) << event;
    EXPECT_EQ(cache_count("262144", 3, event) - one, 2 * 4'096) << event;
  }
  EXPECT_EQ(cache_count("262144", 3, "LLC-load-misses"), cache_count("262144", 1, "LLC-load-misses"));
  // 2 MiB, 32,768 lines: larger than the LL too.
  const long long one = cache_count("2097152", 1, "LLC-load-misses");
  EXPECT_EQ(cache_count("2097152", 2, "LLC-load-misses") - one, 32'768);
  // 16 KiB fits in L1D: later passes hit.
  EXPECT_EQ(cache_count("16384", 3, "L1-dcache-load-misses"), cache_count("16384", 1, "L1-dcache-load-misses"));
}

TEST(EmulatedStat, CacheModelSaysWhichCachesItModels) {
  REQUIRE_QEMU();
  Result given = emulated_stat({"--I1=16K,4,64", "--D1=32768,8,64", "--LL=1048576,16,64", "-e",
                                "cache-references,cache-misses,L1-icache-load-misses", "--", EMULATED_LOOP, "1000"});
  ASSERT_EQ(given.exit_code, 0) << given.err;
  EXPECT_NE(given.err.find("cache model (LRU, one per thread): L1I 16 KiB, 4-way, 64-byte lines; L1D 32 KiB, 8-way, "
                           "64-byte lines; LL 1 MiB, 16-way, 64-byte lines (given)"),
            std::string::npos)
      << given.err;
  EXPECT_EQ(given.err.find("not supported"), std::string::npos) << given.err;
  // The host's caches where none are given, and where they come from.
  Result host = emulated_stat({"-e", "L1-dcache-load-misses", "--", EMULATED_LOOP, "1000"});
  ASSERT_EQ(host.exit_code, 0) << host.err;
  EXPECT_NE(host.err.find("cache model (LRU, one per thread): L1I "), std::string::npos) << host.err;
  EXPECT_TRUE(host.err.find("(sysfs") != std::string::npos || host.err.find("(CPUID") != std::string::npos ||
              host.err.find("(defaults") != std::string::npos)
      << host.err;
  // The events that need no model do not run it.
  Result without = emulated_stat({"--", EMULATED_LOOP, "1000"});
  EXPECT_EQ(without.err.find("cache model"), std::string::npos) << without.err;

  Result odd = emulated_stat({"--D1=32768,7,64", "--", EMULATED_LOOP, "1"});
  EXPECT_EQ(odd.exit_code, 129);
  EXPECT_NE(odd.err.find("--D1=32768,7,64 cannot be modelled: its size must be a whole number of sets"),
            std::string::npos)
      << odd.err;
  Result small_lines =
      emulated_stat({"--D1=32K,8,64", "--LL=1M,16,32", "-e", "LLC-load-misses", "--", EMULATED_LOOP, "1"});
  EXPECT_NE(small_lines.exit_code, 0);
  EXPECT_NE(small_lines.err.find("cannot model an LL whose lines (32 bytes) are smaller than the L1"),
            std::string::npos)
      << small_lines.err;
  Result malformed = emulated_stat({"--LL=8M", "--", EMULATED_LOOP, "1"});
  EXPECT_EQ(malformed.exit_code, 129);
  EXPECT_NE(malformed.err.find("--LL takes SIZE,ASSOCIATIVITY,LINE_SIZE"), std::string::npos) << malformed.err;
  Result native = run({PERFMON, "stat", "--D1=32768,8,64", "--", EMULATED_LOOP, "1"});
  EXPECT_EQ(native.exit_code, 129);
  EXPECT_NE(native.err.find("use them with --emulate"), std::string::npos) << native.err;
}

TEST(EmulatedStat, CountsEveryThread) {
  REQUIRE_QEMU();
  // Four threads each run the loop; how long the main thread waits in pthread_join varies by a few
  // instructions with the scheduling, the loops do not.
  const long long once = emulated_count({EMULATED_LOOP, loop(1'000'000), "4"});
  const long long twice = emulated_count({EMULATED_LOOP, loop(2'000'000), "4"});
  EXPECT_NEAR(static_cast<double>(twice - once), 8'000'000.0, 1'000.0);
  Result r = emulated_stat({"--", EMULATED_LOOP, "1000", "4"});
  EXPECT_NE(r.err.find("1 process, 5 threads"), std::string::npos) << r.err;
}

TEST(EmulatedStat, CountsMoreThreadsThanCounterSlots) {
  REQUIRE_QEMU();
  // 300 threads alive at once, more than the 255 slots of their own: the rest share one, with
  // atomic adds, and nothing is lost. The barrier's and joins' waits vary with the scheduling.
  const long long once = emulated_count({EMULATED_LOOP, loop(10'000), "300"});
  const long long twice = emulated_count({EMULATED_LOOP, loop(20'000), "300"});
  EXPECT_NEAR(static_cast<double>(twice - once), 300 * 20'000.0, 300 * 100.0);
}

TEST(EmulatedStat, FollowsTheCommandsForksAndExecs) {
  REQUIRE_QEMU();
  // The shell forks twice and each child execs the loop: the second loop's million iterations more
  // are counted, in the child of a child.
  auto script = [](long second) {
    return std::string(EMULATED_LOOP) + " 1000000; " + EMULATED_LOOP + " " + std::to_string(second) + " & wait";
  };
  const long long one = emulated_count({"sh", "-c", script(1'000'000)});
  const long long two = emulated_count({"sh", "-c", script(2'000'000)});
  // The shell's waits for its children vary with the scheduling by a few instructions.
  EXPECT_NEAR(static_cast<double>(two - one), 2'000'000.0, 1'000.0);
  EXPECT_GT(one, 4'000'000);  // both loops, and the shell
  Result r = emulated_stat({"--", "sh", "-c", script(1)});
  EXPECT_NE(r.err.find("3 processes, 3 threads"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("warning"), std::string::npos) << r.err;
}

// A followed exec runs the program in a new QEMU, which takes the signals the guest ignored and
// blocked from its host process, as the kernel would give them to the program: nohup and a shell's
// trap '' work under the emulated CPU.
TEST(EmulatedStat, AFollowedExecKeepsIgnoredAndBlockedSignals) {
  REQUIRE_QEMU();
  Result r = emulated_stat(
      {"-e", "instructions", "-o", "/dev/null", "--", EMULATED_LOOP, "ignore-block-exec", EMULATED_LOOP, "signals"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("SIGUSR1 ignored, SIGUSR2 blocked"), std::string::npos) << r.out;
  Result nohup = emulated_stat({"-e", "instructions", "-o", "/dev/null", "--", "nohup", EMULATED_LOOP, "signals"});
  EXPECT_EQ(nohup.exit_code, 0) << nohup.err;
  EXPECT_NE(nohup.out.find("SIGHUP ignored"), std::string::npos) << nohup.out;
}

TEST(EmulatedStat, CountsMoreProcessesThanCounterSlots) {
  REQUIRE_QEMU();
  // 300 processes one after another, more than the 255 slots: each keeps its slot at exit, and
  // those of the processes that are gone are taken over. Every loop is counted.
  auto script = [](long iterations) {
    return "i=0; while [ $i -lt 300 ]; do " + std::string(EMULATED_LOOP) + " " + std::to_string(iterations) +
           "; i=$((i + 1)); done";
  };
  const long long once = emulated_count({"sh", "-c", script(1'000)});
  const long long twice = emulated_count({"sh", "-c", script(2'000)});
  // The shell's waits for its children vary with the scheduling by a few instructions (19 in 300
  // once); a lost process would lose 2,000.
  EXPECT_NEAR(static_cast<double>(twice - once), 300 * 2'000.0, 1'000.0);
}

TEST(EmulatedStat, RunsScriptsOnTheEmulatedCpu) {
  REQUIRE_QEMU();
  const std::filesystem::path script = std::filesystem::temp_directory_path() / "perfmon-emulated-script.sh";
  std::ofstream(script) << "#!/bin/sh\n" << EMULATED_LOOP << " \"$1\"\n";
  std::filesystem::permissions(script, std::filesystem::perms::owner_all);
  const long long one = emulated_count({script.string(), "1000000"});
  const long long two = emulated_count({script.string(), "2000000"});
  std::filesystem::remove(script);
  EXPECT_EQ(two - one, 2'000'000);
}

TEST(EmulatedStat, EveryRowOfEveryShapeIsMarked) {
  REQUIRE_QEMU();
  Result table = emulated_stat({"-e", "instructions,cycles", "--", EMULATED_LOOP, "1000"});
  ASSERT_EQ(table.exit_code, 0) << table.err;
  int rows = 0;
  for (const std::string& line : lines_of(table.err))
    if (line.starts_with(" ") &&
        (line.find(" instructions ") != std::string::npos || line.find(" cycles ") != std::string::npos)) {
      EXPECT_TRUE(line.ends_with("(emulated)")) << line;
      ++rows;
    }
  EXPECT_EQ(rows, 2) << table.err;
  EXPECT_NE(table.err.find("<not supported> cycles: the emulated CPU counts instructions, branches,"),
            std::string::npos)
      << table.err;
  EXPECT_NE(table.err.find("counted on QEMU's emulated"), std::string::npos) << table.err;

  Result json = emulated_stat({"-j", "-e", "instructions,instructions:k", "--", EMULATED_LOOP, "1000"});
  ASSERT_EQ(json.exit_code, 0) << json.err;
  const std::vector<std::string> objects = lines_of(json.err);
  ASSERT_EQ(objects.size(), 2u) << json.err;
  for (const std::string& object : objects) EXPECT_EQ(nlohmann::json::parse(object).value("emulated", false), true);
  EXPECT_EQ(nlohmann::json::parse(objects[1])["counter-value"], "<not supported>");
}

TEST(EmulatedStat, PrintsIntervalsWhileTheCommandRuns) {
  REQUIRE_QEMU();
  Result r = emulated_stat({"-x,", "-I", "100", "--", EMULATED_LOOP, "300000000"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  long long total = 0;
  std::size_t intervals = 0;
  for (const std::string& line : lines_of(r.err)) {
    std::vector<std::string> fields = fields_of(line);
    if (fields.size() < 4 || fields[3] != "instructions") continue;
    total += std::stoll(fields[1]);
    ++intervals;
  }
  EXPECT_GE(intervals, 2u) << r.err;
  EXPECT_EQ(total, emulated_count({EMULATED_LOOP, "300000000"}));
}

TEST(EmulatedStat, ErrorsSayWhatToDo) {
  REQUIRE_QEMU();
  Result missing = emulated_stat({"--", "no-such-command-anywhere"});
  EXPECT_EQ(missing.exit_code, 127);
  EXPECT_NE(missing.err.find("check the command's name and PATH"), std::string::npos) << missing.err;

  const std::filesystem::path text = std::filesystem::temp_directory_path() / "perfmon-emulated-not-a-program";
  std::ofstream(text) << "echo not a program\n";
  std::filesystem::permissions(text, std::filesystem::perms::owner_all);
  Result foreign = emulated_stat({"--", text.string()});
  std::filesystem::remove(text);
  EXPECT_NE(foreign.exit_code, 0);
  EXPECT_NE(foreign.err.find("is not a 64-bit x86-64 or arm64 program"), std::string::npos) << foreign.err;

  Result no_qemu = run({"/usr/bin/env", "PATH=/nonexistent", PERFMON, "stat", "--emulate", "--", EMULATED_LOOP, "1"});
  EXPECT_NE(no_qemu.exit_code, 0);
  EXPECT_NE(no_qemu.err.find("which is not installed: install Debian's qemu-user"), std::string::npos) << no_qemu.err;

  Result no_plugin = run(
      {"/usr/bin/env", "PERFMON_QEMU_PLUGIN=/nonexistent.so", PERFMON, "stat", "--emulate", "--", EMULATED_LOOP, "1"});
  EXPECT_NE(no_plugin.exit_code, 0);
  EXPECT_NE(no_plugin.err.find("/nonexistent.so is not a readable file"), std::string::npos) << no_plugin.err;

  Result usage = emulated_stat({"-a", "--", EMULATED_LOOP, "1"});
  EXPECT_EQ(usage.exit_code, 129);
  EXPECT_NE(usage.err.find("--emulate runs a command"), std::string::npos) << usage.err;
}

// Where the CPU's counters cannot count a command's instructions, perfmon stat says that the
// emulated CPU can; where they can, or for software events, it says nothing of it.
TEST(EmulatedStat, IsSuggestedWhereThePmuCannotCountTheCommand) {
  REQUIRE_QEMU();
  const std::string hint = "perfmon stat --emulate counts the command's instructions";
  Result hardware = run({PERFMON, "stat", "-e", "instructions", "--", EMULATED_LOOP, "1"});
  EXPECT_EQ(hardware.exit_code, 0) << hardware.err;
  const bool pmu_counts = hardware.err.find("<not supported>") == std::string::npos;
  EXPECT_EQ(hardware.err.find(hint) != std::string::npos, !pmu_counts) << hardware.err;
  Result software = run({PERFMON, "stat", "-e", "task-clock", "--", EMULATED_LOOP, "1"});
  EXPECT_EQ(software.err.find(hint), std::string::npos) << software.err;
  Result emulated = emulated_stat({"-e", "instructions", "--", EMULATED_LOOP, "1"});
  EXPECT_EQ(emulated.err.find(hint), std::string::npos) << emulated.err;
}

// Deciding on that line starts no QEMU: a qemu-user found on PATH is enough (its version is
// perfmon info's business), so perfmon stat starts as fast with qemu-user installed as without.
TEST(EmulatedStat, DecidesOnTheSuggestionWithoutRunningQemu) {
  char pattern[] = "/tmp/perfmon-fake-qemu-XXXXXX";
  const std::filesystem::path dir = mkdtemp(pattern);
  const std::filesystem::path ran = dir / "qemu-ran";
  {
    std::ofstream fake(dir / ("qemu-" + host_machine()));
    fake << "#!/bin/sh\ntouch " << ran.string() << "\necho 'qemu version 7.2.0'\n";
  }
  std::filesystem::permissions(dir / ("qemu-" + host_machine()), std::filesystem::perms::owner_all);
  const std::string path = "PATH=" + dir.string() + ":/usr/bin:/bin";
  Result r = run({"/usr/bin/env", path, PERFMON, "stat", "-e", "instructions", "--", "true"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  const bool pmu_counts = r.err.find("<not supported>") == std::string::npos;
  EXPECT_FALSE(std::filesystem::exists(ran)) << "perfmon stat ran qemu-user\n" << r.err;
  // perfmon info does run it, for its version, with an argument vector.
  Result info = run({"/usr/bin/env", path, PERFMON, "info"});
  EXPECT_EQ(info.exit_code, 0) << info.err;
  EXPECT_TRUE(std::filesystem::exists(ran)) << info.out;
  std::filesystem::remove_all(dir);
  if (pmu_counts) GTEST_SKIP() << "this CPU's counters count instructions, so no suggestion was considered";
}

// QEMU's path is never given to a shell: a directory on PATH may be named anything.
TEST(EmulatedInfo, RunsQemuFromAnyDirectoryWithoutAShell) {
  REQUIRE_QEMU();
  std::string qemu;
  for (const char* directory : {"/usr/bin", "/usr/local/bin", "/bin"})
    if (access((std::string(directory) + "/qemu-" + host_machine()).c_str(), X_OK) == 0) {
      qemu = std::string(directory) + "/qemu-" + host_machine();
      break;
    }
  if (qemu.empty()) GTEST_SKIP() << "qemu-user is not in /usr/bin, /usr/local/bin or /bin";
  char pattern[] = "/tmp/perfmon-path-XXXXXX";
  const std::filesystem::path dir = mkdtemp(pattern);
  for (const char* name : {"x;touch INJECTED;#", "with space"}) {
    SCOPED_TRACE(name);
    const std::filesystem::path bin = dir / name;
    std::filesystem::create_directory(bin);
    std::filesystem::create_symlink(qemu, bin / ("qemu-" + host_machine()));
    // Run from `dir`, where the injected command would leave its file.
    Result r = run({"/bin/sh", "-c", "cd \"$0\" && exec /usr/bin/env PATH=\"$1\":/usr/bin:/bin \"$2\" info --json",
                    dir.string(), bin.string(), PERFMON});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_FALSE(std::filesystem::exists(dir / "INJECTED"));
    EXPECT_EQ(r.err, "");
    const nlohmann::json emulated = nlohmann::json::parse(r.out)["emulated_cpu"];
    EXPECT_EQ(emulated["qemu"], (bin / ("qemu-" + host_machine())).string());
    EXPECT_FALSE(emulated["qemu_version"].get<std::string>().empty()) << emulated;
    std::filesystem::remove_all(bin);
  }
  std::filesystem::remove_all(dir);
}

TEST(EmulatedInfo, SaysWhetherTheEmulatedCpuIsAvailableAndWithWhat) {
  Result without = run({"/usr/bin/env", "PATH=/nonexistent", PERFMON, "info"});
  ASSERT_EQ(without.exit_code, 0) << without.err;
  EXPECT_NE(without.out.find("emulated CPU    not available: the emulated CPU needs qemu-"), std::string::npos)
      << without.out;
  REQUIRE_QEMU();
  Result with = run({PERFMON, "info", "--json"});
  ASSERT_EQ(with.exit_code, 0) << with.err;
  const nlohmann::json emulated = nlohmann::json::parse(with.out)["emulated_cpu"];
  EXPECT_TRUE(emulated["available"]) << emulated;
  EXPECT_TRUE(emulated["qemu"].get<std::string>().ends_with("/qemu-" + std::string(host_machine()))) << emulated;
  EXPECT_FALSE(emulated["qemu_version"].get<std::string>().empty()) << emulated;
  EXPECT_EQ(emulated["plugin_api_version"], 1);
  EXPECT_TRUE(std::filesystem::exists(emulated["plugin"].get<std::string>())) << emulated;
  // The caches the cache model takes by default, and where they come from.
  const nlohmann::json caches = nlohmann::json::parse(with.out)["caches"];
  for (const char* level : {"l1i", "l1d", "ll"}) {
    EXPECT_GT(caches[level]["size"].get<long>(), 0) << caches;
    EXPECT_GT(caches[level]["associativity"].get<long>(), 0) << caches;
    EXPECT_GT(caches[level]["line_size"].get<long>(), 0) << caches;
  }
  EXPECT_FALSE(caches["source"].get<std::string>().empty()) << caches;
}

// A program that measures a region of itself with the library (tests/emulate/region.cpp), run by
// perfmon stat --emulate with `stat_events`: each of its "NAME RAW NET" lines by name.
std::map<std::string, std::pair<long long, long long>> region_counts(const std::string& stat_events,
                                                                     const std::string& region_events, long iterations,
                                                                     std::string* output = nullptr) {
  Result r = emulated_stat({"-x,", "-e", stat_events, "--", EMULATED_REGION, region_events, loop(iterations)});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  if (output != nullptr) *output = r.out;
  std::map<std::string, std::pair<long long, long long>> counts;
  for (const std::string& line : lines_of(r.out)) {
    std::istringstream in(line);
    std::string name, raw, net;
    in >> name >> raw >> net;
    if (!raw.empty() && std::isdigit(static_cast<unsigned char>(raw[0])))
      counts[name] = {std::stoll(raw), std::stoll(net)};
  }
  return counts;
}

#define REQUIRE_REGION_PROGRAM()                                                                               \
  REQUIRE_QEMU();                                                                                              \
  if (std::string(EMULATED_REGION).empty())                                                                    \
  GTEST_SKIP() << "this is the sanitizer build: a sanitized program does not run under qemu-user (its shadow " \
                  "memory), so the region program is built without sanitizers only"

TEST(EmulatedRegion, CountsJustTheRegionExactly) {
  REQUIRE_REGION_PROGRAM();
  // The library in the program reads its thread's counts from the plugin: a region of a loop of
  // 2N instructions and N branches counts them exactly, less the empty region's cost (calibrate).
  std::map<std::string, std::pair<long long, long long>> counts[3];
  for (int k = 0; k < 3; ++k)
    counts[k] = region_counts("instructions,branches", "instructions,branches", (k + 1) * 1'000'000);
  ASSERT_EQ(counts[0].count("instructions"), 1u);
  ASSERT_EQ(counts[0].count("branches"), 1u);
  EXPECT_EQ(counts[1]["instructions"].second - counts[0]["instructions"].second, 2'000'000);
  EXPECT_EQ(counts[2]["instructions"].second - counts[1]["instructions"].second, 2'000'000);
  EXPECT_EQ(counts[1]["branches"].second - counts[0]["branches"].second, 1'000'000);
  EXPECT_EQ(counts[2]["branches"].second - counts[1]["branches"].second, 1'000'000);
  // Just the region: the loop and a call's worth around it, not the program's start-up.
  EXPECT_GE(counts[0]["instructions"].second, 2'000'000);
  EXPECT_LT(counts[0]["instructions"].second, 2'000'100);
  // The same each run.
  EXPECT_EQ(region_counts("instructions,branches", "instructions,branches", 1'000'000), counts[0]);
}

TEST(EmulatedRegion, CountsTheModelsEventsThatTheEmulatedCpuRuns) {
  REQUIRE_REGION_PROGRAM();
  // The loop's branch is learnt: a million more iterations add a miss at most (where the
  // predictor's state before the loop differs). The loop loads nothing: they add no loads. Both
  // runs count the same events in the region, so that the program around the loop is the same
  // (a predictor indexed by address sees the library's code too).
  std::string output;
  const std::string region_events = "branch-misses,L1-dcache-loads,L1-dcache-load-misses";
  auto once = region_counts("instructions,branch-misses,L1-dcache-loads", region_events, 1'000'000, &output);
  auto twice = region_counts("instructions,branch-misses,L1-dcache-loads", region_events, 2'000'000);
  ASSERT_EQ(once.count("branch-misses"), 1u) << output;
  ASSERT_EQ(once.count("L1-dcache-loads"), 1u) << output;
  EXPECT_LE(twice["branch-misses"].second - once["branch-misses"].second, 1) << output;
  EXPECT_LT(once["branch-misses"].second, 100) << output;
  EXPECT_EQ(twice["L1-dcache-loads"], once["L1-dcache-loads"]) << output;
  // The emulated CPU was started without its cache model: the region says how to start it with.
  EXPECT_NE(output.find("L1-dcache-load-misses unsupported: the emulated CPU was started without its cache model: "
                        "start it with this event among perfmon stat --emulate's events"),
            std::string::npos)
      << output;
  EXPECT_NE(output.find("note: counted on perfmon's emulated CPU: the counts are the calling thread's."),
            std::string::npos)
      << output;
}

TEST(EmulatedRegion, GoogleBenchmarkCountsPerIterationExactly) {
  REQUIRE_REGION_PROGRAM();
  if (std::string(BENCHMARK_COUNTERS).empty()) GTEST_SKIP() << "Google Benchmark was not found: no example to run";
  // examples/benchmark_counters on the emulated CPU: each count per iteration of a benchmark with
  // fixed iterations is the same every run, and twice the elements add a whole number of
  // instructions per element, to the instruction.
  auto per_iteration = [] {
    Result r = emulated_stat({"-e", "instructions,branches", "--", BENCHMARK_COUNTERS, "--benchmark_filter=iterations",
                              "--benchmark_format=json"});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    std::map<std::string, double> instructions;
    const nlohmann::json report = nlohmann::json::parse(r.out);
    for (const nlohmann::json& benchmark : report["benchmarks"]) {
      EXPECT_TRUE(benchmark.contains("branches")) << benchmark;
      instructions[benchmark["name"].get<std::string>()] = benchmark.value("instructions", 0.0);
    }
    return instructions;
  };
  const std::map<std::string, double> first = per_iteration();
  ASSERT_EQ(first.size(), 3u);
  EXPECT_EQ(per_iteration(), first);
  // Over the 1,000 iterations: a whole number of instructions for each of the 2,048 elements more.
  const long long added =
      std::llround(1000 * (first.at("BM_Sum/4096/iterations:1000") - first.at("BM_Sum/2048/iterations:1000")));
  EXPECT_GT(added, 0);
  EXPECT_EQ(added % (2048 * 1000), 0) << added;
}

TEST(EmulatedRegion, RunNativelyItCountsWithTheKernel) {
  REQUIRE_REGION_PROGRAM();
  // Without the emulated CPU the library counts as it always does; with its variable set by
  // mistake, the events say what is wrong instead of counting nothing.
  Result native = run({EMULATED_REGION, "task-clock", "1000"});
  EXPECT_EQ(native.exit_code, 0) << native.err;
  EXPECT_EQ(native.out.find("emulated"), std::string::npos) << native.out;
  EXPECT_EQ(native.out.rfind("task-clock ", 0), 0u) << native.out;
  Result mistaken = run({"/usr/bin/env", "PERFMON_EMULATED_CPU=1", EMULATED_REGION, "task-clock", "1000"});
  EXPECT_EQ(mistaken.exit_code, 0) << mistaken.err;
  EXPECT_NE(mistaken.out.find("task-clock unsupported: PERFMON_EMULATED_CPU is set, but perfmon's emulated CPU does "
                              "not answer"),
            std::string::npos)
      << mistaken.out;
}

TEST(EmulatedWorkload, SaysWhichExecsRanNatively) {
  REQUIRE_QEMU();
  // Without following, the shell's exec of the loop runs natively, uncounted, and is reported.
  EmulatorOptions options;
  options.follow_exec = false;
  EmulatedWorkload workload({"sh", "-c", std::string("exec ") + EMULATED_LOOP + " 1000000"}, options);
  EventCatalog catalog;
  CounterSession session(catalog.parse("instructions,branches"), Target::emulated(workload));
  session.start();
  workload.start();
  WorkloadExit exit;
  while (!workload.wait(exit)) {
  }
  session.stop();
  EXPECT_EQ(exit.exit_code(), 0);
  const EmulatedCounts counts = workload.read();
  EXPECT_EQ(counts.execs_not_followed, 1u);
  EXPECT_EQ(counts.execs_followed, 0u);
  EXPECT_LT(counts.instructions, 2'000'000u);  // the shell only
  EXPECT_NE(workload.first_exec_not_followed().find("following execs is off"), std::string::npos)
      << workload.first_exec_not_followed();
  // The session's reading says so too, under the counts.
  ASSERT_EQ(session.read(), 0);
  const Reading reading = session.reading();
  EXPECT_TRUE(reading.emulated);
  ASSERT_FALSE(reading.summary.empty());
  EXPECT_EQ(reading.summary.back().rfind("warning: 1 exec of the command ran natively, uncounted; the first: ", 0), 0u)
      << reading.summary.back();
  // Branches were not asked for: the session says so rather than count nothing.
  EXPECT_TRUE(session.supported(0));
  EXPECT_FALSE(session.supported(1));
  EXPECT_NE(session.unsupported_reason(1).find("without counting branches"), std::string::npos)
      << session.unsupported_reason(1);

  // A failed exec runs nothing natively: nothing to report.
  EmulatedWorkload failing({"sh", "-c", "/no/such/program 2>/dev/null; exit 0"}, options);
  failing.start();
  while (!failing.wait(exit)) {
  }
  EXPECT_EQ(failing.read().execs_not_followed, 0u);
}

// The same library calls as natively: a CounterSession on Target::emulated counts the command on
// the emulated CPU, as perfmon stat --emulate does, its rows are marked, and its reading's summary
// says what was emulated.
TEST(EmulatedWorkload, CounterSessionOnAnEmulatedTargetCountsTheCommand) {
  REQUIRE_QEMU();
  EventCatalog catalog;
  const std::vector<EventGroup> groups = catalog.parse("instructions,branches,cycles");
  EmulatedWorkload workload({EMULATED_LOOP, loop(1'000'000)}, EmulatorOptions{}.enabled_for(groups));
  SessionOptions options;
  options.skip_unsupported = true;  // cycles
  CounterSession session(groups, Target::emulated(workload), options);
  EXPECT_TRUE(session.emulated());
  session.start();
  workload.start();
  WorkloadExit exit;
  while (!workload.wait(exit)) {
  }
  session.stop();
  ASSERT_EQ(session.read(), 0);
  const EmulatedCounts counts = workload.read();
  EXPECT_EQ(session.value(0).raw, counts.instructions);
  EXPECT_EQ(session.value(1).raw, counts.branches());
  EXPECT_GT(session.value(0).enabled, 0u);
  EXPECT_EQ(session.value(0).enabled, session.value(0).running);
  EXPECT_FALSE(session.supported(2));
  EXPECT_NE(session.unsupported_reason(2).find("emulated CPU"), std::string::npos) << session.unsupported_reason(2);
  EXPECT_EQ(static_cast<long long>(session.value(0).raw), emulated_count({EMULATED_LOOP, loop(1'000'000)}));
  const Reading reading = session.reading();
  for (const StatRow& row : stat_rows(reading)) EXPECT_TRUE(row.emulated) << row.event;
  ASSERT_FALSE(reading.summary.empty());
  EXPECT_EQ(reading.summary.front().rfind("(emulated): counted on QEMU's emulated ", 0), 0u) << reading.summary.front();
  EXPECT_NE(reading.summary.front().find(", 1 process, 1 thread;"), std::string::npos) << reading.summary.front();
}

// The library's records, as a perf.data writer takes them: in time order, each thread named
// before its first sample, each sample's address in a file mapping written before it, and as
// many samples as the plugin counted.
TEST(EmulatedWorkload, HandsSamplesInTimeOrderAfterTheirNamesAndMappings) {
  REQUIRE_QEMU();
  EmulatorOptions options;
  options.sample_period = 10'000;
  options.sample_callchains = true;
  EmulatedWorkload workload({EMULATED_LOOP, "100000", "3"}, options);
  const perf_event_attr attr = workload.sample_attr();
  EXPECT_EQ(attr.sample_period, 10'000u);
  EXPECT_EQ(attr.sample_type,
            PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN);
  workload.start();
  WorkloadExit exit;
  while (!workload.wait(exit)) {
  }
  ASSERT_EQ(exit.exit_code(), 0);
  struct Mapping {
    std::uint64_t start, end;
  };
  std::vector<Mapping> mappings;
  std::set<std::uint32_t> named;
  std::uint64_t samples = 0, last_time = 0;
  workload.read_samples([&](const perf_event_header& header) {
    const auto* words = reinterpret_cast<const std::uint64_t*>(&header);
    const auto* halves = reinterpret_cast<const std::uint32_t*>(&header);
    if (header.type == PERF_RECORD_COMM) {
      named.insert(halves[3]);
      return;
    }
    if (header.type == PERF_RECORD_MMAP2) {
      mappings.push_back({words[2], words[2] + words[3]});
      return;
    }
    ASSERT_EQ(header.type, PERF_RECORD_SAMPLE);
    ++samples;
    const std::uint64_t ip = words[1], time = words[3];
    EXPECT_GE(time, last_time);
    last_time = time;
    EXPECT_TRUE(named.count(halves[5])) << "thread " << halves[5] << " sampled before it was named";
    EXPECT_TRUE(
        std::any_of(mappings.begin(), mappings.end(), [&](const Mapping& m) { return ip >= m.start && ip < m.end; }))
        << "sample at 0x" << std::hex << ip << " before its mapping";
    EXPECT_EQ(words[4], 10'000u);                                        // period
    EXPECT_EQ(words[6], static_cast<std::uint64_t>(PERF_CONTEXT_USER));  // callchain
    EXPECT_EQ(words[7], ip);
  });
  const EmulatedCounts counts = workload.read();
  EXPECT_EQ(samples, counts.samples);
  EXPECT_EQ(counts.samples_lost, 0u);
  EXPECT_GE(samples, 3 * 20u);  // each thread's loop of 200,000 instructions
  EXPECT_GE(named.size(), 3u);  // three threads, and the main one where it ran 10,000 instructions
}

// perfmon record --emulate into a file of a directory of its own.
class EmulatedRecord : public ::testing::Test {
 protected:
  void SetUp() override {
    REQUIRE_QEMU();
    char pattern[] = "/tmp/perfmon-emulated-record-XXXXXX";
    dir_ = mkdtemp(pattern);
    file_ = (dir_ / "perf.data").string();
  }
  void TearDown() override {
    if (!dir_.empty()) std::filesystem::remove_all(dir_);
  }
  Result record(std::vector<std::string> args) const {
    args.insert(args.begin(), {PERFMON, "record", "--emulate", "-q", "-o", file_});
    return run(args);
  }
  // Each sample of the file, as perfmon script --json prints it.
  std::vector<nlohmann::json> samples() const {
    Result r = run({PERFMON, "script", "--json", "-i", file_});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    std::vector<nlohmann::json> all;
    for (const std::string& line : lines_of(r.out)) all.push_back(nlohmann::json::parse(line));
    return all;
  }
  static std::size_t in_function(const std::vector<nlohmann::json>& samples, const std::string& function) {
    std::size_t n = 0;
    for (const nlohmann::json& sample : samples) n += sample.value("sym", "") == function;
    return n;
  }
  std::filesystem::path dir_;
  std::string file_;
};

// A thread takes a sample each c instructions it executes: the whole run floor(instructions / c),
// each of period c, the same from run to run; the loop's 2N instructions hold exactly 2N/c of them
// (c divides 2N), and its function's few other instructions one more at most.
TEST_F(EmulatedRecord, SamplesEveryPeriodOfInstructionsExactly) {
  const long long instructions = emulated_count({EMULATED_LOOP, loop(1'000'000)}, "instructions:u");
  Result r = record({"-c", "10000", "--", EMULATED_LOOP, loop(1'000'000)});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::vector<nlohmann::json> first = samples();
  EXPECT_EQ(first.size(), static_cast<std::size_t>(instructions / 10'000));
  EXPECT_GE(in_function(first, "exact_loop"), 200u);
  EXPECT_LE(in_function(first, "exact_loop"), 201u);
  for (const nlohmann::json& sample : first) {
    EXPECT_EQ(sample["event"], "instructions:u (emulated)");
    EXPECT_EQ(sample["period"], 10'000);
    EXPECT_EQ(sample["comm"], "perfmon-test-em");  // the program's name, as the kernel gives it
    EXPECT_FALSE(sample.contains("callchain") && !sample["callchain"].empty()) << sample;  // not asked for
  }
  ASSERT_EQ(record({"-c", "10000", "--", EMULATED_LOOP, loop(1'000'000)}).exit_code, 0);
  const std::vector<nlohmann::json> second = samples();
  ASSERT_EQ(second.size(), first.size());
  for (std::size_t k = 0; k < first.size(); ++k) EXPECT_EQ(second[k]["ip"], first[k]["ip"]) << k;
}

// -g: the callchain of the calls the emulated CPU executed and has not returned from.
TEST_F(EmulatedRecord, CallchainsAreTheCallsTheThreadIsIn) {
  ASSERT_EQ(record({"-g", "-c", "10000", "--", EMULATED_LOOP, loop(1'000'000)}).exit_code, 0);
  std::size_t checked = 0;
  for (const nlohmann::json& sample : samples()) {
    if (sample.value("sym", "") != "exact_loop") continue;
    std::vector<std::string> functions;
    for (const nlohmann::json& frame : sample["callchain"])
      if (!frame.value("inlined", false)) functions.push_back(frame.value("sym", "?"));
    ASSERT_GE(functions.size(), 3u) << sample;
    EXPECT_EQ(functions[0], "exact_loop");
    // main calls it (through run_loop, where the compiler did not inline that), and libc calls main.
    const auto main_at = std::find(functions.begin() + 1, functions.end(), "main");
    ASSERT_NE(main_at, functions.end()) << sample;
    EXPECT_LE(main_at - functions.begin(), 2) << sample;
    ASSERT_NE(main_at + 1, functions.end()) << sample;
    EXPECT_EQ(*(main_at + 1), "__libc_start_call_main") << sample;
    ++checked;
  }
  EXPECT_GE(checked, 200u);
}

// Every thread counts down its own instructions: each of 3 threads' loops holds 2N/c samples (or
// one more) of its own thread, and each called from start_thread.
TEST_F(EmulatedRecord, SamplesEveryThread) {
  ASSERT_EQ(record({"-g", "-c", "10000", "--", EMULATED_LOOP, loop(1'000'000), "3"}).exit_code, 0);
  std::map<long long, std::size_t> loop_samples;  // by thread
  for (const nlohmann::json& sample : samples()) {
    if (sample.value("sym", "") != "exact_loop") continue;
    ++loop_samples[sample["tid"].get<long long>()];
    bool from_start_thread = false;
    for (const nlohmann::json& frame : sample["callchain"])
      from_start_thread |= frame.value("sym", "") == "start_thread";
    EXPECT_TRUE(from_start_thread) << sample;
  }
  ASSERT_EQ(loop_samples.size(), 3u);
  for (const auto& [tid, n] : loop_samples) EXPECT_TRUE(n == 200 || n == 201) << "thread " << tid << ": " << n;
}

// The shell's children, each the loop after an exec, are sampled as processes of their own, named
// after their program; the shell is named sh.
TEST_F(EmulatedRecord, SamplesTheCommandsForksAndExecs) {
  const std::string script = std::string(EMULATED_LOOP) + " 1000000; " + EMULATED_LOOP + " 1000000 & wait";
  ASSERT_EQ(record({"-c", "10000", "--", "sh", "-c", script}).exit_code, 0);
  std::map<long long, std::size_t> loop_samples;  // by process
  bool shell = false;
  for (const nlohmann::json& sample : samples()) {
    shell |= sample["comm"] == "sh";
    if (sample.value("sym", "") != "exact_loop") continue;
    EXPECT_EQ(sample["comm"], "perfmon-test-em");
    ++loop_samples[sample["pid"].get<long long>()];
  }
  EXPECT_TRUE(shell);
  ASSERT_EQ(loop_samples.size(), 2u);
  for (const auto& [pid, n] : loop_samples) EXPECT_TRUE(n == 200 || n == 201) << "process " << pid << ": " << n;
}

// Debian's perf reads the file as its own: the event's name says emulated, the loop's symbol and
// its callers resolve, and perf says nothing against it.
TEST_F(EmulatedRecord, PerfReportReadsTheFile) {
  if (access("/usr/bin/perf", X_OK) != 0) GTEST_SKIP() << "Debian's linux-perf is not installed (/usr/bin/perf)";
  ASSERT_EQ(record({"-g", "-c", "10000", "--", EMULATED_LOOP, loop(1'000'000)}).exit_code, 0);
  Result report = run({"/usr/bin/perf", "report", "-i", file_, "--stdio", "--no-children", "--sort", "sym"});
  EXPECT_EQ(report.exit_code, 0) << report.err;
  EXPECT_EQ(report.err.find("arning"), std::string::npos) << report.err;
  EXPECT_NE(report.out.find("of event 'instructions:u (emulated)'"), std::string::npos) << report.out;
  EXPECT_NE(report.out.find("[.] exact_loop"), std::string::npos) << report.out;
  EXPECT_NE(report.out.find("__libc_start_call_main"), std::string::npos) << report.out;
  Result script = run({"/usr/bin/perf", "script", "-i", file_, "-G", "-F", "ip,sym"});
  EXPECT_EQ(script.exit_code, 0) << script.err;
  std::size_t loop_samples = 0;
  for (const std::string& line : lines_of(script.out)) loop_samples += line.find("exact_loop") != std::string::npos;
  EXPECT_TRUE(loop_samples == 200 || loop_samples == 201) << loop_samples;
}

// Ctrl-C's kind goes to the command; the file is complete and holds what the command sampled
// until then, but for at most its last 0.1 s (QEMU runs no plugin code when a signal kills).
TEST_F(EmulatedRecord, ATerminatedCommandStillGivesACompleteFile) {
  Process record({PERFMON, "record", "--emulate", "-o", file_, "--", EMULATED_LOOP, "30000000000"});
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));
  record.signal(SIGTERM);
  Result r = record.wait();
  EXPECT_EQ(r.exit_code, 128 + SIGTERM) << r.err;
  const std::size_t in_file = samples().size();
  EXPECT_GT(in_file, 100u);
  EXPECT_NE(r.err.find("wrote " + std::to_string(in_file) + " samples"), std::string::npos) << r.err;
}

TEST_F(EmulatedRecord, ErrorsSayWhatToDo) {
  struct Case {
    std::vector<std::string> options;
    const char* says;
  };
  for (const Case& c :
       {Case{{"-e", "cycles"}, "samples one event, instructions"},
        Case{{"-e", "instructions:k"}, "runs user mode only"}, Case{{"-F", "99"}, "give a period with -c"},
        Case{{"--call-graph", "dwarf"}, "use -g (or --call-graph fp), not dwarf"},
        Case{{"-a"}, "--emulate runs a command"}}) {
    std::vector<std::string> args = c.options;
    args.insert(args.end(), {"--", EMULATED_LOOP, "1"});
    Result r = record(args);
    EXPECT_EQ(r.exit_code, 129) << c.says;
    EXPECT_NE(r.err.find(c.says), std::string::npos) << r.err;
    EXPECT_FALSE(std::filesystem::exists(file_)) << c.says;
  }
  Result missing = record({"--", "no-such-command-anywhere"});
  EXPECT_EQ(missing.exit_code, 127);
  EXPECT_NE(missing.err.find("check the command's name and PATH"), std::string::npos) << missing.err;
  EXPECT_FALSE(std::filesystem::exists(file_));
}

// A full disk, on a private 64 KiB tmpfs: the samples wait in an unnamed file there, the
// recording ends in one sentence and exit 1, and nothing is left behind.
TEST_F(EmulatedRecord, AFullDiskLeavesNothingBehind) {
  const std::filesystem::path small = dir_ / "small";
  std::filesystem::create_directory(small);
  if (mount("tmpfs", small.c_str(), "tmpfs", 0, "size=64k") != 0)
    GTEST_SKIP() << "cannot mount a small tmpfs here (needs root): " << strerror(errno);
  Result r = run({PERFMON, "record", "--emulate", "-q", "-c", "100", "-o", (small / "perf.data").string(), "--",
                  EMULATED_LOOP, loop(1'000'000)});
  const bool empty = std::filesystem::is_empty(small);
  umount(small.c_str());
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("No space left on device; free some space"), std::string::npos) << r.err;
  EXPECT_TRUE(empty) << "a failed recording left a file";
}

}  // namespace
}  // namespace perfmon::testing
