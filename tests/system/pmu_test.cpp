// SPDX-License-Identifier: Apache-2.0
// Tests that need a hardware PMU: run in the emulated-PMU rig (tests/rig/run, where PERFMON_RIG=1
// and counts are exact) and on any machine with a PMU (ctest -L pmu, with bounded expectations).
// Where no PMU is exposed they are skipped with the reason.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <linux/hw_breakpoint.h>
#include <linux/perf_event.h>
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <optional>
#include <string>
#include <thread>

#include "../helpers/overflow_signal.hpp"
#include "../helpers/spin.hpp"
#include "kernel/fd.hpp"
#include "kernel/perf_event.hpp"
#include "perfmon/catalog.hpp"
#include "perfmon/error.hpp"
#include "perfmon/event_sets.hpp"
#include "perfmon/marked_regions.hpp"
#include "perfmon/pass_plan.hpp"
#include "perfmon/probe.hpp"
#include "perfmon/sampler.hpp"
#include "perfmon/session.hpp"

namespace perfmon {
namespace {

// In the rig, QEMU's -icount makes every count exact and cycles equal to instructions.
bool in_rig() {
  return std::getenv("PERFMON_RIG") != nullptr;
}

class HardwarePmu : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string why = probe_event(catalog_.resolve("instructions:u").attr);
    if (!why.empty())
      GTEST_SKIP() << "needs a hardware PMU: " << why << " These tests run in the emulated-PMU rig (tests/rig/run).";
  }

  static SessionOptions this_thread() {
    SessionOptions options;
    options.inherit = false;
    return options;
  }

  // Counts of the session's events over one run of the loop.
  static void measure(CounterSession& session, unsigned long n) {
    session.reset();
    session.start();
    perfmon_spin(n);
    session.stop();
    ASSERT_EQ(session.read(), 0);
  }

  EventCatalog catalog_;
};

TEST_F(HardwarePmu, InstructionsOfAKnownLoopAreLinear) {
  CounterSession session(catalog_.parse("instructions:u"), Target::self(), this_thread());
  // Each count is the least of several runs: a timer interrupt taken from user mode inside the
  // window adds one instruction under QEMU's PMU, and whether a tick falls inside depends on the
  // virtual time the run starts at (a rig run once counted 2000051, then 2000052, for one n).
  // Interrupts only add, so the least count is the loop's own.
  auto least = [&](unsigned long n) {
    std::uint64_t fewest = UINT64_MAX;
    for (int run = 0; run < 7; ++run) {
      measure(session, n);
      fewest = std::min(fewest, session.value(0).raw);
    }
    return fewest;
  };
  const std::uint64_t once = least(1'000'000);
  const std::uint64_t twice = least(2'000'000);
  const std::uint64_t again = least(1'000'000);
  const std::uint64_t expected = spin_instructions(2'000'000) - spin_instructions(1'000'000);
  if (in_rig()) {
    EXPECT_EQ(twice - once, expected);  // k*n + c: the difference is exact
    EXPECT_EQ(once, again);             // and repeatable
  } else {
    EXPECT_NEAR(static_cast<double>(twice - once), static_cast<double>(expected), 1e-3 * expected + 100);
  }
  EXPECT_GE(once, spin_instructions(1'000'000));
}

// One region of the loop, read and zeroed after: the same code for every n (n in a register, not a
// constant the compiler might make differently inside the region for each).
[[gnu::noinline]] double region_of_loop(MarkedRegions& regions, unsigned long n) {
  regions.start("loop");
  perfmon_spin(n);
  regions.stop("loop");
  std::vector<double> values;
  double seconds = 0;
  std::uint64_t count = 0;
  const bool stopped = regions.get("loop", values, seconds, count);
  regions.reset("loop");
  return stopped && !values.empty() ? values[0] : -1;
}

// Regions marked in code (likwid's and PAPI's model, perfmon/marked_regions.hpp) on the PMU: two
// threads, each timing loops of n and 2n iterations in a region of its own, read and zeroed after
// each (one tag, so that the region's own path costs the same both times); the difference of the
// least counts is the loop's exactly (an interrupt only adds, as above).
TEST_F(HardwarePmu, MarkedRegionsCountEachThreadsLoops) {
  MarkedRegions regions({"instructions:u"});
  std::vector<std::pair<double, double>> fewest(2, {1e300, 1e300});  // per thread: (n, 2n)
  auto work = [&regions](std::pair<double, double>& least) {
    for (int run = 0; run < 7; ++run) {
      least.first = std::min(least.first, region_of_loop(regions, 1'000'000));
      least.second = std::min(least.second, region_of_loop(regions, 2'000'000));
    }
  };
  // One thread after the other: each on a CPU of its own time, not preempted by the other in its
  // loops (a tick taken from user mode adds an instruction under QEMU's PMU).
  std::thread(work, std::ref(fewest[0])).join();
  std::thread(work, std::ref(fewest[1])).join();
  ASSERT_TRUE(regions.errors().empty()) << regions.errors().front();
  const double expected = static_cast<double>(spin_instructions(2'000'000) - spin_instructions(1'000'000));
  for (std::size_t thread = 0; thread < fewest.size(); ++thread) {
    if (in_rig()) {
      EXPECT_EQ(fewest[thread].second - fewest[thread].first, expected)
          << "thread " << thread << ": " << std::fixed << fewest[thread].first << ", " << fewest[thread].second;
    } else {
      EXPECT_NEAR(fewest[thread].second - fewest[thread].first, expected, 1e-3 * expected + 100);
    }
  }
}

TEST_F(HardwarePmu, GroupOfInstructionsAndCyclesIsReadTogether) {
  CounterSession session(catalog_.parse("{instructions:u,cycles:u}"), Target::self(), this_thread());
  measure(session, 1'000'000);
  CounterValue instructions = session.value(0), cycles = session.value(1);
  ASSERT_TRUE(instructions.counted());
  ASSERT_TRUE(cycles.counted());
  EXPECT_EQ(instructions.enabled, cycles.enabled);  // one read, one header
  EXPECT_EQ(instructions.running, cycles.running);
  if (in_rig()) {
    EXPECT_EQ(cycles.raw, instructions.raw);  // -icount shift=0: one cycle per instruction
  }
}

TEST_F(HardwarePmu, GroupLargerThanThePmuFailsOrIsNeverScheduled) {
  std::string list = "{";
  for (int i = 0; i < 16; ++i) list += std::string(i ? "," : "") + "instructions:u";
  list += "}";
  std::optional<CounterSession> session;
  try {
    session.emplace(catalog_.parse(list), Target::self(), this_thread());
  } catch (const Error& error) {
    SUCCEED() << "refused at open, as x86 and arm64 kernels do: " << error.what();
    return;
  }
  measure(*session, 100'000);
  for (std::size_t i = 0; i < session->event_count(); ++i)
    EXPECT_FALSE(session->value(i).counted()) << "member " << i << " of a group the PMU cannot hold ran";
}

TEST_F(HardwarePmu, MultiplexedEventsAreScaledToTheTruth) {
  CounterSession single(catalog_.parse("instructions:u"), Target::self(), this_thread());
  measure(single, 20'000'000);
  const double truth = static_cast<double>(single.value(0).raw);
  std::string list;
  for (int i = 0; i < 12; ++i) list += std::string(i ? "," : "") + "instructions:u";
  CounterSession session(catalog_.parse(list), Target::self(), this_thread());
  measure(session, 20'000'000);
  int multiplexed = 0;
  for (std::size_t i = 0; i < session.event_count(); ++i) {
    CounterValue value = session.value(i);
    ASSERT_TRUE(value.counted()) << "event " << i;
    EXPECT_LE(value.running, value.enabled);
    if (value.running < value.enabled) ++multiplexed;
    EXPECT_NEAR(value.scaled(), truth, 0.01 * truth) << "event " << i;
  }
  if (in_rig()) {
    EXPECT_EQ(multiplexed, 12);  // 12 events on 6 + 1 counters: all of them take turns
  }
}

TEST_F(HardwarePmu, OverflowSignalsReachUserSpace) {
  const int signo = SIGRTMIN + 2;
  perf_event_attr attr = catalog_.resolve("cycles:u").attr;
  attr.size = sizeof attr;
  attr.sample_period = 100'000;
  attr.wakeup_events = 1;
  attr.disabled = 1;
  kernel::FileDescriptor fd(kernel::perf_event_open(attr, 0, -1, -1, 0));
  ASSERT_TRUE(fd.valid());
  sigset_t set = arm_overflow_signal(fd.get(), signo);
  ASSERT_TRUE(sigismember(&set, signo));
  ASSERT_EQ(kernel::enable(fd.get(), false), 0);
  perfmon_spin(5'000'000);
  ASSERT_EQ(kernel::disable(fd.get(), false), 0);
  std::uint64_t cycles = 0;
  ASSERT_EQ(read(fd.get(), &cycles, sizeof cycles), static_cast<ssize_t>(sizeof cycles));
  long signals = 0;
  timespec zero{};
  while (sigtimedwait(&set, nullptr, &zero) == signo) ++signals;
  // Real-time signals queue: every overflow is one signal (the queue limit is far above this).
  const long expected = static_cast<long>(cycles / attr.sample_period);
  EXPECT_NEAR(signals, expected, 1) << cycles << " cycles";
  pthread_sigmask(SIG_UNBLOCK, &set, nullptr);
}

// The sampler on a hardware event: cycles:u at period P over the loop gives its cycles / P samples
// (the loop is two instructions an iteration, and in the rig a cycle is an instruction), each with
// the loop's address.
TEST_F(HardwarePmu, SamplerTakesOneSamplePerPeriodInTheLoop) {
  SamplingOptions options;
  options.period = 100'000;
  options.inherit = false;
  Sampler sampler(catalog_.parse("cycles:u"), Target::self(), options);
  struct InLoop : SampleHandler {
    std::uintptr_t loop = reinterpret_cast<std::uintptr_t>(&perfmon_spin);
    std::size_t samples = 0, in_loop = 0;
    void sample(std::size_t, const Sample& sample) override {
      ++samples;
      in_loop += sample.ip >= loop && sample.ip < loop + 16;
    }
  } kept;
  constexpr unsigned long kIterations = 5'000'000;
  sampler.start();
  perfmon_spin(kIterations);
  sampler.stop();
  sampler.drain(kept);
  const double expected = 2.0 * kIterations / static_cast<double>(options.period);
  if (in_rig())
    EXPECT_NEAR(static_cast<double>(kept.samples), expected, 1.0);
  else  // a real CPU retires the loop faster or slower than an instruction a cycle
    EXPECT_GT(kept.samples, 0u);
  EXPECT_GE(static_cast<double>(kept.in_loop), 0.95 * static_cast<double>(kept.samples));
  EXPECT_EQ(sampler.stats().lost_records, 0u);
}

// Branch stacks, where the PMU keeps a branch record (Intel LBR, AMD BRS, Arm BRBE): samples of
// the loop carry its backward branch, from inside perfmon_spin to inside it.
TEST_F(HardwarePmu, BranchStacksHoldTheLoopsBranch) {
  SamplingOptions options;
  options.period = 100'000;
  options.inherit = false;
  options.branch_sample_type = PERF_SAMPLE_BRANCH_ANY | PERF_SAMPLE_BRANCH_USER;
  std::optional<Sampler> sampler;
  try {
    sampler.emplace(catalog_.parse("cycles:u"), Target::self(), options);
  } catch (const Error& error) {  // EOPNOTSUPP from the PMU drivers without a branch record
    GTEST_SKIP() << "this PMU keeps no branch record (" << std::strerror(error.errnum()) << "): " << error.what();
  }
  struct Branches : SampleHandler {
    std::uintptr_t loop = reinterpret_cast<std::uintptr_t>(&perfmon_spin);
    std::size_t samples = 0, with_loop_branch = 0;
    void sample(std::size_t, const Sample& sample) override {
      ++samples;
      with_loop_branch += std::any_of(sample.branches.begin(), sample.branches.end(), [&](const perf_branch_entry& b) {
        return b.from >= loop && b.from < loop + 16 && b.to >= loop && b.to < loop + 16;
      });
    }
  } kept;
  sampler->start();
  perfmon_spin(5'000'000);
  sampler->stop();
  sampler->drain(kept);
  ASSERT_GT(kept.samples, 0u);
  EXPECT_GE(static_cast<double>(kept.with_loop_branch), 0.9 * static_cast<double>(kept.samples));
}

class UserModeReads : public HardwarePmu {
 protected:
  void SetUp() override {
    HardwarePmu::SetUp();
    if (IsSkipped()) return;
    SessionOptions options = this_thread();
    options.user_space_reads = true;
    session_.emplace(catalog_.parse("instructions:u"), Target::self(), options);
    if (!session_->notes().empty()) GTEST_SKIP() << session_->notes().front();
  }
  std::uint64_t read_in_user_mode() {
    EXPECT_EQ(session_->read(), 0);
    EXPECT_EQ(session_->user_mode_reads(), 1u);
    return session_->value(0).raw;
  }
  // Instructions counted between two user-mode reads around the loop. One function, not inlined:
  // every call runs the same code around the loop, so only the loop's own count may differ.
  [[gnu::noinline]] std::uint64_t delta(unsigned long n) {
    const std::uint64_t before = read_in_user_mode();
    perfmon_spin(n);
    return read_in_user_mode() - before;
  }
  std::optional<CounterSession> session_;
};

TEST_F(UserModeReads, AgreeWithTheSystemCall) {
  session_->start();
  perfmon_spin(1'000'000);
  const std::uint64_t user = read_in_user_mode();
  ASSERT_EQ(session_->read(ReadMethod::Syscall), 0);
  EXPECT_EQ(session_->user_mode_reads(), 0u);
  const std::uint64_t syscall = session_->value(0).raw;
  EXPECT_GE(user, spin_instructions(1'000'000));
  EXPECT_GE(syscall, user);  // read later, so never less
  EXPECT_LT(syscall - user, 20'000u) << "user " << user << ", read(2) " << syscall;
  EXPECT_TRUE(session_->value(0).counted());
}

TEST_F(UserModeReads, DeltaAroundTheLoopIsExact) {
  session_->start();
  delta(1'000);  // first touches of the code and the user page fault them in; keep them out
  const std::uint64_t once = delta(1'000'000), twice = delta(2'000'000), once_more = delta(1'000'000);
  const std::uint64_t expected = spin_instructions(2'000'000) - spin_instructions(1'000'000);
  if (in_rig()) {
    EXPECT_EQ(twice - once, expected);
    EXPECT_EQ(once, once_more);
  } else {
    EXPECT_NEAR(static_cast<double>(twice - once), static_cast<double>(expected), 1e-3 * expected + 100);
  }
}

TEST_F(HardwarePmu, UserModeReadsFallBackWhenTheKernelForbidsThem) {
#if defined(__aarch64__)
  const char* knob = "/proc/sys/kernel/perf_user_access";
#else
  const char* knob = "/sys/bus/event_source/devices/cpu/rdpmc";
#endif
  std::string saved;
  {
    std::ifstream in(knob);
    std::getline(in, saved);
  }
  if (saved.empty() || access(knob, W_OK) != 0) GTEST_SKIP() << "needs write access to " << knob;
  auto set_knob = [&](const std::string& value) { std::ofstream(knob) << value << "\n"; };
  set_knob("0");
  SessionOptions options = this_thread();
  options.user_space_reads = true;
  std::optional<CounterSession> session;
  session.emplace(catalog_.parse("instructions:u"), Target::self(), options);
  set_knob(saved);
  ASSERT_EQ(session->notes().size(), 1u);
  EXPECT_NE(session->notes()[0].find("read with read(2)"), std::string::npos) << session->notes()[0];
  session->start();
  perfmon_spin(100'000);
  ASSERT_EQ(session->read(), 0);
  EXPECT_EQ(session->user_mode_reads(), 0u);
  EXPECT_GE(session->value(0).raw, spin_instructions(100'000));
}

}  // namespace
}  // namespace perfmon

namespace perfmon {
namespace {

// The least count of several runs of the loop, the measurement's own cost taken off (see
// InstructionsOfAKnownLoopAreLinear for why the least).
std::vector<std::uint64_t> least_subtracted(CounterSession& session, unsigned long n) {
  std::vector<std::uint64_t> fewest(session.event_count(), UINT64_MAX);
  for (int run = 0; run < 5; ++run) {
    session.reset();
    session.start();
    perfmon_spin(n);
    session.stop();
    EXPECT_EQ(session.read(), 0);
    for (std::size_t i = 0; i < session.event_count(); ++i)
      fewest[i] = std::min(fewest[i], session.value(i, Overhead::Subtract).raw);
  }
  return fewest;
}

TEST_F(HardwarePmu, CalibratedCountOfAKnownLoopIsItsInstructions) {
  SessionOptions options = this_thread();
  CounterSession session(catalog_.parse("instructions:u"), Target::self(), options);
  session.calibrate();
  const std::uint64_t first = session.overhead(0);
  session.calibrate();
  if (in_rig()) {
    EXPECT_EQ(session.overhead(0), first);  // stable run to run
  }
  const std::uint64_t counted = least_subtracted(session, 1'000'000)[0];
  // The loop's instructions, and the call's own: the argument's move (one or two instructions)
  // and the call. Nothing of the measurement is left.
  EXPECT_GE(counted, spin_instructions(1'000'000));
  EXPECT_LE(counted, spin_instructions(1'000'000) + 3);
  std::printf("instructions:u: measurement overhead %llu, loop of %lu counted as %llu\n",
              static_cast<unsigned long long>(first), spin_instructions(1'000'000),
              static_cast<unsigned long long>(counted));
}

TEST_F(HardwarePmu, CounterBudgetIsConfirmedByTrying) {
  const std::optional<CounterBudget> budget = counter_budget();
  if (!budget) GTEST_SKIP() << "this machine does not say how many counters it has";
  std::printf("counter budget: %d programmable, %zu fixed (%s)\n", budget->general, budget->fixed_events.size(),
              budget->source.c_str());
  EXPECT_NE(budget->source.find("by trying"), std::string::npos) << budget->source;
  if (in_rig()) {
    EXPECT_EQ(budget->general, 6);  // QEMU's PMUv3: 6 event counters
    EXPECT_NE(budget->source.find("confirmed by trying"), std::string::npos) << budget->source;
  }
}

TEST_F(HardwarePmu, StrictModeRefusesWhatWouldBeMultiplexedAndPassesCountItAll) {
  const std::optional<CounterBudget> budget = counter_budget();
  if (!budget) GTEST_SKIP() << "this machine does not say how many counters it has";
  const int events = budget->general + 2;  // more than the programmable counters
  std::string list;
  for (int i = 0; i < events; ++i) list += std::string(i ? "," : "") + "instructions:u";
  SessionOptions strict = this_thread();
  strict.strict = true;
  try {
    CounterSession session(catalog_.parse("{" + list + "}"), Target::self(), strict);
    ADD_FAILURE() << "a group of " << events << " was not refused";
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find("strict mode"), std::string::npos) << error.what();
  }
  const std::vector<EventGroup> groups = catalog_.parse(list);
  const PassPlan plan = plan_passes(groups, *budget);
  ASSERT_EQ(plan.passes.size(), 2u) << describe_plan(plan, groups);
  CounterSession single(catalog_.parse("instructions:u"), Target::self(), this_thread());
  single.calibrate();
  const std::uint64_t truth = least_subtracted(single, 1'000'000)[0];
  std::size_t counted = 0;
  for (std::size_t pass = 0; pass < plan.passes.size(); ++pass) {
    CounterSession session(plan.groups_of(pass, groups), Target::self(), strict);
    session.calibrate();
    const std::vector<std::uint64_t> values = least_subtracted(session, 1'000'000);
    for (std::size_t i = 0; i < values.size(); ++i) {
      EXPECT_EQ(session.value(i).running, session.value(i).enabled) << "pass " << pass << " event " << i;
      if (in_rig()) {
        EXPECT_EQ(values[i], truth) << "pass " << pass << " event " << i;
      } else {
        EXPECT_NEAR(static_cast<double>(values[i]), static_cast<double>(truth), 1e-3 * static_cast<double>(truth));
      }
    }
    counted += values.size();
  }
  EXPECT_EQ(counted, static_cast<std::size_t>(events));
}

TEST_F(HardwarePmu, EventSetsOfTwelveEventsAreScaledWithinTheirErrorBars) {
  CounterSession single(catalog_.parse("instructions:u"), Target::self(), this_thread());
  measure(single, 20'000'000);
  const double truth = static_cast<double>(single.value(0).raw);
  std::vector<EventSetDefinition> sets(2);
  for (std::uint16_t id = 0; id < 2; ++id) {
    sets[id].id = id;
    sets[id].groups =
        catalog_.parse("instructions:u,instructions:u,instructions:u,instructions:u,instructions:u,instructions:u");
    sets[id].timeout = std::chrono::microseconds(500);
  }
  EventSetOptions options;
  options.session.inherit = false;
  EventSets session(sets, Target::self(), options);
  session.start();
  perfmon_spin(20'000'000);
  session.stop();
  ASSERT_EQ(session.read(), 0);
  EXPECT_GE(session.switches(), 4u);
  for (std::size_t set = 0; set < 2; ++set)
    for (std::size_t i = 0; i < session.event_count(set); ++i) {
      const CountEstimate estimate = session.estimate(set, i);
      ASSERT_TRUE(estimate.standard_error) << "set " << set;
      const double bar = std::max(3 * *estimate.standard_error, 0.005 * truth);
      EXPECT_NEAR(estimate.value, truth, bar)
          << "set " << set << " event " << i << ": " << estimate.slices << " slices";
    }
}

TEST_F(HardwarePmu, EventSetsSwitchOnOverflowsOfTheCycleCounter) {
  std::vector<EventSetDefinition> sets(2);
  for (std::uint16_t id = 0; id < 2; ++id) {
    sets[id].id = id;
    sets[id].groups = catalog_.parse("cycles:u");
    sets[id].triggers = {{0, 1'000'000, 1}};
  }
  EventSetOptions options;
  options.session.inherit = false;
  EventSets session(sets, Target::self(), options);
  session.start();
  perfmon_spin(5'000'000);  // about 10 million cycles
  session.stop();
  ASSERT_EQ(session.read(), 0);
  const std::uint64_t cycles = session.value(0, 0).raw + session.value(1, 0).raw;
  // One switch per million cycles; the overflow interrupt's skid may move the last one across.
  EXPECT_NEAR(static_cast<double>(session.switches()), static_cast<double>(cycles / 1'000'000), 1.0);
  EXPECT_GE(session.info(0).runs, 4u);
  EXPECT_EQ(session.info(0).last_switch_triggers, 1u);
}

}  // namespace
}  // namespace perfmon

namespace perfmon {
namespace {

// A workload of uneven phases, fixed by a seed: chunks of the loop of different lengths, each
// followed by a few system calls (kernel time, in which user instructions do not advance), so an
// event's rate differs from slice to slice. `between` runs after every chunk (a reading).
template <typename Between>
void uneven_work(unsigned seed, Between&& between) {
  std::uint32_t state = seed * 2654435761U + 1;
  auto next = [&] { return state = state * 1664525U + 1013904223U; };
  for (int chunk = 0; chunk < 40; ++chunk) {
    perfmon_spin(20'000 + next() % 480'000);
    for (std::uint32_t call = next() % 40; call > 0; --call) syscall(SYS_getppid);
    between();
  }
}

struct Coverage {
  const char* method;
  int estimates = 0, within_1 = 0, within_2 = 0;
  double error = 0, reported = 0, bias = 0;  // sums of |estimate - truth|, stderr, estimate - truth, / truth
  void add(double estimate, std::optional<double> standard_error, double truth) {
    ++estimates;
    const double miss = std::abs(estimate - truth);
    const double bar = standard_error.value_or(0);
    within_1 += miss <= bar ? 1 : 0;
    within_2 += miss <= 2 * bar ? 1 : 0;
    error += miss / truth;
    bias += (estimate - truth) / truth;
    reported += bar / truth;
  }
  void print() const {
    std::printf("| %s | %d | %.3f%% | %+.3f%% | %.3f%% | %.0f%% | %.0f%% |\n", method, estimates,
                100 * error / estimates, 100 * bias / estimates, 100 * reported / estimates,
                100.0 * within_1 / estimates, 100.0 * within_2 / estimates);
  }
};

TEST_F(HardwarePmu, ErrorBarsCoverTheTruth) {
  // Twelve instructions:u over 50 runs of uneven work, counted three ways: multiplexed by the
  // kernel (read after every chunk), in two user-level sets of six, and in two passes. The truth of
  // each run is one instructions:u counted alone. Prints the table in docs/benchmarks.md.
  if (!in_rig()) GTEST_SKIP() << "a study for the rig (deterministic counts)";
  std::string mux_knob, saved_interval;
  for (const char* pmu : {"armv8_pmuv3", "armv8_pmuv3_0", "cpu"}) {
    mux_knob = std::string("/sys/bus/event_source/devices/") + pmu + "/perf_event_mux_interval_ms";
    std::getline(std::ifstream(mux_knob), saved_interval);
    if (!saved_interval.empty()) break;
  }
  ASSERT_FALSE(saved_interval.empty()) << "no perf_event_mux_interval_ms for the core PMU";
  std::ofstream(mux_knob) << "1\n";  // more rotations within a run
  const std::optional<CounterBudget> budget = counter_budget();
  ASSERT_TRUE(budget);
  const std::string twelve =
      "instructions:u,instructions:u,instructions:u,instructions:u,instructions:u,instructions:u,"
      "instructions:u,instructions:u,instructions:u,instructions:u,instructions:u,instructions:u";
  const std::vector<EventGroup> groups = catalog_.parse(twelve);
  const PassPlan plan = plan_passes(groups, *budget);
  Coverage kernel{"kernel multiplexing, read after each of 40 chunks"};
  Coverage sets{"user-level sets (2 x 6), 250 us timeout"};
  Coverage passes{"2 passes"};
  for (unsigned seed = 1; seed <= 50; ++seed) {
    CounterSession single(catalog_.parse("instructions:u"), Target::self(), this_thread());
    single.start();
    uneven_work(seed, [] {});
    single.stop();
    ASSERT_EQ(single.read(), 0);
    const double truth = static_cast<double>(single.value(0).raw);

    SessionOptions options = this_thread();
    options.error_bars = true;
    CounterSession multiplexed(groups, Target::self(), options);
    multiplexed.start();
    uneven_work(seed, [&] { multiplexed.read(); });
    multiplexed.stop();
    ASSERT_EQ(multiplexed.read(), 0);
    for (std::size_t i = 0; i < multiplexed.event_count(); ++i) {
      const CountEstimate estimate = multiplexed.estimate(i);
      kernel.add(estimate.value, estimate.standard_error, truth);
    }

    std::vector<EventSetDefinition> definitions(2);
    for (std::uint16_t id = 0; id < 2; ++id) {
      definitions[id].id = id;
      definitions[id].groups = std::vector<EventGroup>(groups.begin() + 6 * id, groups.begin() + 6 * id + 6);
      definitions[id].timeout = std::chrono::microseconds(250);
    }
    EventSetOptions set_options;
    set_options.session.inherit = false;
    EventSets switched(definitions, Target::self(), set_options);
    switched.start();
    uneven_work(seed, [] {});
    switched.stop();
    ASSERT_EQ(switched.read(), 0);
    for (std::size_t set = 0; set < 2; ++set)
      for (std::size_t i = 0; i < switched.event_count(set); ++i) {
        const CountEstimate estimate = switched.estimate(set, i);
        sets.add(estimate.value, estimate.standard_error, truth);
      }

    for (std::size_t pass = 0; pass < plan.passes.size(); ++pass) {
      SessionOptions strict = this_thread();
      strict.strict = true;
      CounterSession session(plan.groups_of(pass, groups), Target::self(), strict);
      session.start();
      uneven_work(seed, [] {});
      session.stop();
      ASSERT_EQ(session.read(), 0);
      for (std::size_t i = 0; i < session.event_count(); ++i) {
        const CountEstimate estimate = session.estimate(i);
        passes.add(estimate.value, estimate.standard_error, truth);
      }
    }
  }
  std::ofstream(mux_knob) << saved_interval << "\n";
  std::printf("| method | estimates | mean error | mean bias | mean reported stderr | within 1 stderr | within 2 |\n");
  for (const Coverage* coverage : {&kernel, &sets, &passes}) coverage->print();
  // Passes count every event all the time: no error to report, and none made beyond the few
  // instructions each extra group's ioctls add.
  EXPECT_LT(passes.error / passes.estimates, 1e-5);
  // An interval of two standard errors should hold the truth about 95% of the time; demand most.
  EXPECT_GE(kernel.within_2, kernel.estimates * 3 / 4);
  EXPECT_GE(sets.within_2, sets.estimates * 3 / 4);
}

// Hardware breakpoints: a breakpoint on a function called N times counts N, a watchpoint on a
// variable written N times counts N. Some hypervisors accept breakpoints but never deliver their
// debug exceptions (the development VM's): there they skip with the reason; the rig's QEMU
// emulates arm64's debug registers, and runs them.
constexpr long kCalls = 1000;

[[gnu::noinline]] void counted_function(volatile int* sink) {
  asm volatile("");
  *sink = *sink + 1;
}

SessionOptions calling_thread_only() {
  SessionOptions options;
  options.inherit = false;
  return options;
}

// Whether this machine delivers hardware-breakpoint hits at all, checked without perfmon: a raw
// write breakpoint on a variable written once. Some hypervisors accept breakpoints but never fire them.
std::string breakpoints_do_not_fire() {
  static volatile long probe_target = 0;
  perf_event_attr attr{};
  attr.size = sizeof attr;
  attr.type = PERF_TYPE_BREAKPOINT;
  attr.bp_type = HW_BREAKPOINT_W;
  attr.bp_addr = reinterpret_cast<std::uintptr_t>(&probe_target);
  attr.bp_len = HW_BREAKPOINT_LEN_8;
  attr.exclude_kernel = 1;
  attr.exclude_hv = 1;
  int fd = static_cast<int>(syscall(SYS_perf_event_open, &attr, 0, -1, -1, 0));
  if (fd < 0) return std::string("hardware breakpoints cannot be opened here: ") + std::strerror(errno);
  probe_target = 1;
  std::uint64_t hits = 0;
  bool read_ok = read(fd, &hits, sizeof hits) == static_cast<ssize_t>(sizeof hits);
  close(fd);
  if (read_ok && hits == 1) return "";
  return "hardware breakpoints open on this machine but do not fire (a raw perf_event_open write breakpoint "
         "counted " +
         std::to_string(hits) + " of 1 hits; the hypervisor does not deliver debug exceptions)";
}

TEST(HardwareBreakpoint, ExecuteBreakpointCountsEveryCall) {
  if (std::string why = breakpoints_do_not_fire(); !why.empty()) GTEST_SKIP() << why;
  volatile int sink = 0;
  char event[64];
  std::snprintf(event, sizeof event, "mem:%p:x", reinterpret_cast<void*>(&counted_function));
  CounterSession session(EventCatalog().parse(event), Target::self(), calling_thread_only());
  session.start();
  for (long i = 0; i < kCalls; ++i) counted_function(&sink);
  session.stop();
  ASSERT_EQ(session.read(), 0);
  EXPECT_EQ(session.value(0).raw, static_cast<std::uint64_t>(kCalls));
}

TEST(HardwareBreakpoint, WriteBreakpointCountsEveryStore) {
  if (std::string why = breakpoints_do_not_fire(); !why.empty()) GTEST_SKIP() << why;
  static volatile long watched = 0;
  char event[64];
  std::snprintf(event, sizeof event, "mem:%p/8:w", static_cast<void*>(const_cast<long*>(&watched)));
  CounterSession session(EventCatalog().parse(event), Target::self(), calling_thread_only());
  session.start();
  for (long i = 0; i < 100; ++i) watched = i;
  session.stop();
  ASSERT_EQ(session.read(), 0);
  EXPECT_EQ(session.value(0).raw, 100u);
}

}  // namespace
}  // namespace perfmon
