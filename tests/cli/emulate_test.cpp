// SPDX-License-Identifier: Apache-2.0
// perfmon stat --emulate: the command on QEMU's emulated CPU, counted exactly through the CLI, its
// forks, execs and threads included, every row marked; its errors; and perfmon info's lines.
#include "emulated.hpp"

namespace perfmon::testing {
namespace {

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

}  // namespace
}  // namespace perfmon::testing
