// SPDX-License-Identifier: Apache-2.0
// The emulated CPU through the library: regions a program on it measures with its own sessions (and
// Google Benchmark's counters), and EmulatedWorkload with a CounterSession on it: the execs that ran
// natively, its reading, its samples in order.
#include "emulated.hpp"

namespace perfmon::testing {
namespace {

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
                        "count this event in the command's own measurement too"),
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

}  // namespace
}  // namespace perfmon::testing
