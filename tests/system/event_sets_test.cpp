// SPDX-License-Identifier: Apache-2.0
// perfmon2's event sets against the running kernel, with exact counts: a tracepoint on getppid
// counts every call, so overflow switching, cascades and each set's share are known in advance.
// Timeout switching runs on task-clock, checked by what holds whatever the machine's speed.
#include <gtest/gtest.h>
#include <time.h>

#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <thread>
#include <vector>

#include "../helpers/system_calls.hpp"
#include "perfmon/error.hpp"
#include "perfmon/event_sets.hpp"
#include "perfmon/stat.hpp"
#include "perfmon/workload.hpp"

namespace perfmon {
namespace {

using testing::call_getppid;
using testing::catalog;

constexpr const char* kGetppid = "syscalls:sys_enter_getppid";

EventSetDefinition set_of(std::uint16_t id, const char* events) {
  EventSetDefinition set;
  set.id = id;
  set.groups = catalog().parse(events);
  return set;
}

EventSetOptions no_inherit() {
  EventSetOptions options;
  options.session.inherit = false;
  return options;
}

// Burns this thread's CPU time (not wall time) until `ns` of it have passed.
void burn_cpu_ns(long ns) {
  timespec start, now;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &start);
  volatile unsigned long sink = 0;
  do {
    for (int i = 0; i < 1000; ++i) sink = sink + 1;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
  } while ((now.tv_sec - start.tv_sec) * 1'000'000'000L + (now.tv_nsec - start.tv_nsec) < ns);
}

TEST(EventSets, OneSetWithoutSwitchingCountsLikeASession) {
  std::vector<EventSetDefinition> sets{set_of(0, kGetppid)};
  EventSets session(sets, Target::self(), no_inherit());
  session.start();
  call_getppid(137);
  session.stop();
  ASSERT_EQ(session.read(), 0);
  EXPECT_EQ(session.value(0, 0).raw, 137u);
  EXPECT_EQ(session.info(0).runs, 1u);
  EXPECT_EQ(session.switches(), 0u);
  // Counted all the time: the estimate is the count, with no uncertainty.
  const CountEstimate estimate = session.estimate(0, 0);
  EXPECT_DOUBLE_EQ(estimate.value, 137.0);
  ASSERT_TRUE(estimate.standard_error);
  EXPECT_EQ(*estimate.standard_error, 0.0);
}

// Its Reading labels each event with its set and says how the sets took turns.
TEST(EventSets, ReadingLabelsEveryEventWithItsSet) {
  std::vector<EventSetDefinition> sets{set_of(0, kGetppid), set_of(3, kGetppid)};
  sets[1].next = 0;
  EventSets session(sets, Target::self(), no_inherit());
  session.start();
  call_getppid(11);
  session.stop();
  ASSERT_EQ(session.read(), 0);
  const Reading reading = session.reading();
  ASSERT_EQ(reading.events.size(), 2u);
  EXPECT_EQ(reading.events[0].label, "set0");
  EXPECT_EQ(reading.events[1].label, "set3");
  EXPECT_EQ(reading.events[0].label_kind, "set");
  EXPECT_EQ(reading.events[0].value.raw, 11u);  // set 0 was on the PMU all the time
  EXPECT_EQ(reading.events[1].value.raw, 0u);
  ASSERT_TRUE(reading.events[0].estimate);
  EXPECT_DOUBLE_EQ(reading.events[0].estimate->value, 11.0);
  EXPECT_FALSE(reading.emulated);
  ASSERT_EQ(reading.summary.size(), 3u);
  EXPECT_EQ(reading.summary[0].rfind("set0: 1 run, on the PMU 100.00% of the time", 0), 0u) << reading.summary[0];
  EXPECT_EQ(reading.summary[2].rfind("0 switches;", 0), 0u) << reading.summary[2];
  const std::vector<StatRow> rows = stat_rows(reading);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[1].prefix, "set3");
}

TEST(EventSets, OverflowSwitchingSwitchesOncePerPeriodExactly) {
  // Two sets, each ending its turn after 10 calls: 95 calls make 9 switches, and the sets count
  // 50 and 45 calls (0: 10+10+10+10+10, 1: 10+10+10+10+5).
  std::vector<EventSetDefinition> sets{set_of(0, kGetppid), set_of(1, kGetppid)};
  sets[0].triggers = {{0, 10, 1}};
  sets[1].triggers = {{0, 10, 1}};
  EventSets session(sets, Target::self(), no_inherit());
  ASSERT_TRUE(session.switches_in_handler());
  session.start();
  call_getppid(95);
  session.stop();
  ASSERT_EQ(session.read(), 0);
  EXPECT_EQ(session.switches(), 9u);
  EXPECT_EQ(session.value(0, 0).raw, 50u);
  EXPECT_EQ(session.value(1, 0).raw, 45u);
  EXPECT_EQ(session.info(0).runs, 5u);
  EXPECT_EQ(session.info(1).runs, 5u);
  EXPECT_EQ(session.info(0).last_switch_triggers, 1u);
  EXPECT_EQ(session.active_set(), 1u);
}

TEST(EventSets, ATriggerNeedsItsNumberOfOverflows) {
  // Period 4, three overflows: the set gives way after 12 calls, the other set never does.
  std::vector<EventSetDefinition> sets{set_of(0, kGetppid), set_of(1, kGetppid)};
  sets[0].triggers = {{0, 4, 3}};
  EventSets session(sets, Target::self(), no_inherit());
  session.start();
  call_getppid(40);
  session.stop();
  ASSERT_EQ(session.read(), 0);
  EXPECT_EQ(session.switches(), 1u);
  EXPECT_EQ(session.value(0, 0).raw, 12u);
  EXPECT_EQ(session.value(1, 0).raw, 28u);
}

TEST(EventSets, CascadeCountsExactlyWhatFollowsTheThreshold) {
  // "Count getpid after the 25th getppid": set 0 arms getppid at 25 and switches to set 1 (no
  // switching), which counts getppid and getpid from then on.
  std::vector<EventSetDefinition> sets{set_of(0, kGetppid),
                                       set_of(1, "syscalls:sys_enter_getppid,syscalls:sys_enter_getpid")};
  sets[0].triggers = {{0, 25, 1}};
  sets[0].next = 1;
  sets[1].next = 1;  // stays
  EventSets session(sets, Target::self(), no_inherit());
  session.start();
  for (int i = 0; i < 40; ++i) {
    syscall(SYS_getpid);
    call_getppid(1);
  }
  session.stop();
  ASSERT_EQ(session.read(), 0);
  EXPECT_EQ(session.value(0, 0).raw, 25u);
  EXPECT_EQ(session.value(1, 0).raw, 15u);  // getppid after the 25th
  EXPECT_EQ(session.value(1, 1).raw, 15u);  // getpid after the 25th getppid
  EXPECT_EQ(session.info(1).runs, 1u);      // set_runs says the cascade happened
}

TEST(EventSets, ExplicitChainsSkipSetsOutsideThem) {
  // 0 -> 5 -> 0: set 3 is never on the PMU.
  std::vector<EventSetDefinition> sets{set_of(0, kGetppid), set_of(3, kGetppid), set_of(5, kGetppid)};
  sets[0].triggers = {{0, 2, 1}};
  sets[0].next = 5;
  sets[2].triggers = {{0, 3, 1}};
  sets[2].next = 0;
  EventSets session(sets, Target::self(), no_inherit());
  session.start();
  call_getppid(20);  // 2, 3, 2, 3, 2, 3, 2, 3 = 20
  session.stop();
  ASSERT_EQ(session.read(), 0);
  EXPECT_EQ(session.value(0, 0).raw, 8u);
  EXPECT_EQ(session.value(1, 0).raw, 0u);
  EXPECT_EQ(session.value(2, 0).raw, 12u);
  EXPECT_EQ(session.info(1).runs, 0u);
  EXPECT_EQ(session.info(0).next, 5);
  EXPECT_EQ(session.info(2).next, 0);
}

TEST(EventSets, TimeoutSwitchingFollowsTheThreadsCpuTime) {
  // 2 ms of CPU time a turn over 60 ms of CPU time: about 30 switches, whatever the machine.
  std::vector<EventSetDefinition> sets{set_of(0, "task-clock"), set_of(1, "task-clock")};
  sets[0].timeout = sets[1].timeout = std::chrono::milliseconds(2);
  EventSets session(sets, Target::self(), no_inherit());
  session.start();
  burn_cpu_ns(60'000'000);
  session.stop();
  ASSERT_EQ(session.read(), 0);
  EXPECT_GE(session.switches(), 10u);
  EXPECT_GE(session.info(0).runs, 5u);
  EXPECT_GE(session.info(1).runs, 5u);
  EXPECT_EQ(session.info(0).timeout, std::chrono::milliseconds(2));
  // Each set's task-clock counts its own turns only; scaled, each estimates the whole time.
  const double whole = static_cast<double>(session.value(0, 0).enabled);
  EXPECT_EQ(session.value(0, 0).enabled, session.info(0).active_ns + session.info(1).active_ns);
  EXPECT_LT(static_cast<double>(session.value(0, 0).raw), whole);
  for (std::size_t set = 0; set < 2; ++set) {
    const CountEstimate estimate = session.estimate(set, 0);
    EXPECT_GE(estimate.slices, 5u);
    ASSERT_TRUE(estimate.standard_error);
    EXPECT_NEAR(estimate.value, session.value(set, 0).scaled(), 1e-6 * whole);
  }
}

// What is left of a timeout: a set that has run 30 ms of its 200 ms has about 170 ms left (the
// thread's CPU clock and task-clock differ by a little); a set that has not run yet has all of it;
// a set whose timeout ran out starts a whole one.
TEST(EventSets, InfoSaysWhatIsLeftOfTheTimeout) {
  std::vector<EventSetDefinition> sets{set_of(0, kGetppid), set_of(1, kGetppid)};
  sets[0].timeout = sets[1].timeout = std::chrono::milliseconds(200);
  EventSets session(sets, Target::self(), no_inherit());
  session.start();
  burn_cpu_ns(30'000'000);
  session.stop();
  EXPECT_EQ(session.active_set(), 0u);
  EXPECT_GT(session.info(0).timeout_left.count(), 0);
  EXPECT_LE(session.info(0).timeout_left, std::chrono::milliseconds(175));
  EXPECT_EQ(session.info(1).timeout_left, std::chrono::milliseconds(200));
  session.start();
  burn_cpu_ns(200'000'000);  // set 0's timeout runs out 170 ms in; set 1 runs about 30 ms
  session.stop();
  ASSERT_EQ(session.active_set(), 1u);
  EXPECT_GE(session.info(0).timeout_left, std::chrono::milliseconds(180));
  EXPECT_GT(session.info(1).timeout_left.count(), 0);
  EXPECT_LT(session.info(1).timeout_left, std::chrono::milliseconds(200));
}

// A timeout whose signal is lost (as when SIGIO replaces it) is found by handle_waiting_overflows():
// one switch, and none when no timeout ran out.
TEST(EventSets, ATimeoutWhoseSignalWasLostIsFoundInTheTimer) {
  std::vector<EventSetDefinition> sets{set_of(0, kGetppid), set_of(1, kGetppid)};
  sets[0].timeout = sets[1].timeout = std::chrono::milliseconds(20);
  EventSetOptions options = no_inherit();
  options.switch_in_handler = false;
  options.signal = SIGRTMIN + 6;
  EventSets session(sets, Target::self(), options);
  EXPECT_FALSE(session.handle_waiting_overflows());
  session.start();
  burn_cpu_ns(25'000'000);
  sigset_t ours;
  sigemptyset(&ours);
  sigaddset(&ours, options.signal);
  const timespec none{};
  siginfo_t info;
  int lost = 0;
  while (sigtimedwait(&ours, &info, &none) == options.signal) ++lost;
  EXPECT_EQ(lost, 1);
  EXPECT_EQ(session.active_set(), 0u);
  EXPECT_TRUE(session.handle_waiting_overflows());
  EXPECT_EQ(session.active_set(), 1u);
  EXPECT_FALSE(session.handle_waiting_overflows());
  session.stop();
}

TEST(EventSets, ShortTimeoutsAreRaisedToTheKernelsShortest) {
  std::vector<EventSetDefinition> sets{set_of(0, "task-clock")};
  sets[0].timeout = std::chrono::nanoseconds(100);
  EventSets session(sets, Target::self(), no_inherit());
  EXPECT_EQ(session.info(0).timeout, std::chrono::microseconds(10));
}

TEST(EventSets, ReadsDeferASwitchUntilTheyEnd) {
  // switch_now() is the library's own call: a read in progress is never split (covered by the
  // counts staying consistent across many reads while switching).
  std::vector<EventSetDefinition> sets{set_of(0, kGetppid), set_of(1, kGetppid)};
  sets[0].triggers = sets[1].triggers = {{0, 1, 1}};
  EventSets session(sets, Target::self(), no_inherit());
  session.start();
  for (int i = 0; i < 200; ++i) {
    call_getppid(1);
    ASSERT_EQ(session.read(), 0);
    ASSERT_EQ(session.value(0, 0).raw + session.value(1, 0).raw, static_cast<std::uint64_t>(i + 1));
  }
  session.stop();
  EXPECT_EQ(session.switches(), 200u);
}

TEST(EventSets, ACommandSwitchesInTheCallersService) {
  // Caller-driven: the worker calls getppid 600 times, pausing 200 us after each; each set gives
  // way after 50 calls. The
  // switches come late (the tool must be scheduled) and the calls made between disabling one set
  // and enabling the next are counted by neither (the blind spot of a switch from another process).
  Workload workload({WORKER, "getppid", "600", "--pause-us", "200"});
  std::vector<EventSetDefinition> sets{set_of(0, kGetppid), set_of(1, kGetppid)};
  sets[0].triggers = sets[1].triggers = {{0, 50, 1}};
  EventSets session(sets, Target::workload(workload), {});
  EXPECT_FALSE(session.switches_in_handler());
  workload.start();
  WorkloadExit exit;
  while (!workload.wait(exit, false)) session.service(5);
  session.service(0);
  ASSERT_EQ(session.read(), 0);
  EXPECT_LE(session.value(0, 0).raw + session.value(1, 0).raw, 600u);
  EXPECT_GE(session.switches(), 1u);
  EXPECT_GE(session.value(0, 0).raw, 50u);
  EXPECT_GT(session.value(1, 0).raw, 0u);
}

TEST(EventSets, PerCpuSetsSwitchOnTheCallersServiceExactly) {
  // System-wide on every CPU, switched by this thread: it makes the calls one at a time and hands
  // each overflow to the sets before the next, so the split is exact even though the switch is
  // not made in a handler. Other processes' getppid calls would count too: the split below only
  // needs the sets' totals to be ours (the machine is otherwise quiet for getppid).
  std::vector<EventSetDefinition> sets{set_of(0, kGetppid), set_of(1, kGetppid)};
  sets[0].triggers = sets[1].triggers = {{0, 10, 1}};
  EventSets session(sets, Target::all_cpus(), {});
  ASSERT_FALSE(session.switches_in_handler());
  session.start();
  for (int i = 0; i < 35; ++i) {
    call_getppid(1);
    session.service(0);
  }
  session.stop();
  ASSERT_EQ(session.read(), 0);
  EXPECT_EQ(session.switches(), 3u);
  EXPECT_EQ(session.value(0, 0).raw, 20u);
  EXPECT_EQ(session.value(1, 0).raw, 15u);
}

TEST(EventSets, PerCpuTimeoutsRunOnTheFirstCpusClock) {
  // One cpu-clock timer for the whole measurement: 2 ms turns over about 30 ms of wall time.
  std::vector<EventSetDefinition> sets{set_of(0, "cpu-clock"), set_of(1, "cpu-clock")};
  sets[0].timeout = sets[1].timeout = std::chrono::milliseconds(2);
  EventSets session(sets, Target::all_cpus(), {});
  session.start();
  timespec start, now;
  clock_gettime(CLOCK_MONOTONIC, &start);
  do {
    session.service(1);
    clock_gettime(CLOCK_MONOTONIC, &now);
  } while ((now.tv_sec - start.tv_sec) * 1'000'000'000L + (now.tv_nsec - start.tv_nsec) < 30'000'000);
  session.stop();
  ASSERT_EQ(session.read(), 0);
  EXPECT_GE(session.switches(), 4u);
  EXPECT_GE(session.info(1).runs, 2u);
  EXPECT_GT(session.info(0).active_ns, 0u);
  EXPECT_GT(session.info(1).active_ns, 0u);
}

TEST(EventSets, MovedSetsKeepSwitching) {
  std::vector<EventSetDefinition> sets{set_of(0, kGetppid), set_of(1, kGetppid)};
  sets[0].triggers = sets[1].triggers = {{0, 5, 1}};
  EventSets first(sets, Target::self(), no_inherit());
  EventSets session = std::move(first);
  session.start();
  call_getppid(12);
  EventSets later(sets, Target::self(), no_inherit());
  later = std::move(session);  // the sets that were in `later` are closed, these go on
  call_getppid(8);
  later.stop();
  ASSERT_EQ(later.read(), 0);
  EXPECT_EQ(later.switches(), 4u);
  EXPECT_EQ(later.value(0, 0).raw, 10u);
  EXPECT_EQ(later.value(1, 0).raw, 10u);
}

// What an overflow hook saw: each record with its set and event, and when to ask for a hold.
struct HookLog {
  struct Seen {
    std::size_t set, event;
    Sample record;
  };
  Seen seen[64];
  std::atomic<int> count{0};
  int hold_at = -1;  // the index of the record that holds, if any
  static OverflowAction hook(void* user, std::size_t set, std::size_t event, const Sample& record) {
    HookLog& log = *static_cast<HookLog*>(user);
    const int n = log.count.load();
    if (n < 64) log.seen[n] = {set, event, record};
    log.count.store(n + 1);
    return n == log.hold_at ? OverflowAction::Hold : OverflowAction::Continue;
  }
};

EventSetOptions hooked(HookLog& log) {
  EventSetOptions options = no_inherit();
  options.on_overflow = {&HookLog::hook, &log};
  return options;
}

// Every 10th call overflows the sampled getppid of either set; set 0 gives way after three of its
// overflows, set 1 after one, a cycle of 40 calls. 95 calls: set 0 counts 30+30+15 with 7
// overflows, set 1 10+10 with 2, and the hook sees all 9 in order, each the kernel's record of
// this thread.
TEST(EventSets, TheOverflowHookSeesEveryOverflowOfTheActiveSetWithItsRecord) {
  std::vector<EventSetDefinition> sets{set_of(0, kGetppid), set_of(1, kGetppid)};
  sets[0].triggers = {{0, 10, 3}};
  sets[1].triggers = {{0, 10, 1}};
  HookLog log;
  EventSets session(sets, Target::self(), hooked(log));
  timespec before;
  clock_gettime(CLOCK_MONOTONIC, &before);
  session.start();
  call_getppid(95);
  session.stop();
  ASSERT_EQ(session.read(), 0);
  EXPECT_EQ(session.value(0, 0).raw, 75u);
  EXPECT_EQ(session.value(1, 0).raw, 20u);
  EXPECT_EQ(session.switches(), 4u);
  ASSERT_EQ(log.count.load(), 9);
  const std::size_t sets_seen[] = {0, 0, 0, 1, 0, 0, 0, 1, 0};
  std::uint64_t last = static_cast<std::uint64_t>(before.tv_sec) * 1'000'000'000u + before.tv_nsec;
  for (int i = 0; i < 9; ++i) {
    const HookLog::Seen& seen = log.seen[i];
    EXPECT_EQ(seen.set, sets_seen[i]) << i;
    EXPECT_EQ(seen.event, 0u);
    EXPECT_EQ(seen.record.tid, static_cast<std::uint32_t>(::syscall(SYS_gettid)));
    EXPECT_NE(seen.record.ip, 0u);
    EXPECT_GT(seen.record.time, last) << "records come in order, on CLOCK_MONOTONIC";
    last = seen.record.time;
  }
}

// A hold stops the set at once, the switch its trigger asked for included, until resume(): the 50
// calls made meanwhile count nowhere, and the resume switches to set 1.
TEST(EventSets, AHoldStopsTheSetAndItsSwitchUntilResume) {
  std::vector<EventSetDefinition> sets{set_of(0, kGetppid), set_of(1, kGetppid)};
  sets[0].triggers = {{0, 10, 2}};
  HookLog log;
  log.hold_at = 1;
  EventSets session(sets, Target::self(), hooked(log));
  session.start();
  call_getppid(20);
  EXPECT_TRUE(session.held());
  EXPECT_EQ(session.active_set(), 0u);
  call_getppid(50);
  ASSERT_EQ(session.resume(), 0);
  EXPECT_FALSE(session.held());
  EXPECT_EQ(session.active_set(), 1u);
  call_getppid(5);
  session.stop();
  ASSERT_EQ(session.read(), 0);
  EXPECT_EQ(session.value(0, 0).raw, 20u);
  EXPECT_EQ(session.value(1, 0).raw, 5u);
  EXPECT_EQ(session.info(0).last_switch_triggers, 1u);
  EXPECT_EQ(log.count.load(), 2);
}

// Another thread's sets, their signals routed to an overflow_thread (this one, which blocks the
// signal and hands it over): the hook sees the thread's 10 overflows, each with its tid, and
// switches follow them (set 0 gives way after 5). The thread waits at each 10th call until its
// overflow is handled, so that no call falls between a set and the next.
TEST(EventSets, AnOverflowThreadHandsAnotherThreadsOverflowsToTheHook) {
  std::atomic<pid_t> tid{0};
  std::atomic<bool> go{false};
  std::atomic<int> handled{0};
  std::thread worker([&] {
    tid = static_cast<pid_t>(::syscall(SYS_gettid));
    while (!go) std::this_thread::yield();
    for (int call = 1; call <= 100; ++call) {
      call_getppid(1);
      const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(5);
      while (call % 10 == 0 && handled < call / 10 && std::chrono::steady_clock::now() < give_up)
        std::this_thread::yield();
    }
  });
  while (tid == 0) std::this_thread::yield();
  std::vector<EventSetDefinition> sets{set_of(0, kGetppid), set_of(1, kGetppid)};
  sets[0].triggers = {{0, 10, 5}};
  sets[1].groups.front().events.front().attr.sample_period = 10;
  HookLog log;
  EventSetOptions options = hooked(log);
  options.session.overflow_thread = static_cast<pid_t>(::syscall(SYS_gettid));
  options.signal = SIGRTMIN + 5;
  sigset_t ours, before;
  sigemptyset(&ours);
  sigaddset(&ours, options.signal);
  pthread_sigmask(SIG_BLOCK, &ours, &before);
  {
    EventSets session(sets, Target::thread(tid), options);
    EXPECT_FALSE(session.switches_in_handler());
    session.start();
    go = true;
    const timespec wait{1, 0};
    siginfo_t info;
    while (handled < 10 && sigtimedwait(&ours, &info, &wait) > 0) {
      session.handle_overflow(info);
      handled = log.count.load();
    }
    session.stop();
    EXPECT_EQ(log.count.load(), 10);
    for (int i = 0; i < 10; ++i) EXPECT_EQ(log.seen[i].record.tid, static_cast<std::uint32_t>(tid.load())) << i;
    EXPECT_EQ(log.seen[4].set, 0u);
    EXPECT_EQ(log.seen[5].set, 1u);
    EXPECT_EQ(session.switches(), 1u);
  }
  worker.join();
  pthread_sigmask(SIG_SETMASK, &before, nullptr);
}

TEST(EventSets, DefinitionsThatCannotWorkAreRefused) {
  auto refused = [](std::vector<EventSetDefinition> sets, EventSetOptions options = no_inherit()) {
    try {
      EventSets session(std::move(sets), Target::self(), options);
    } catch (const Error& error) {
      return std::string(error.what());
    }
    return std::string();
  };
  EXPECT_NE(refused({}).find("no event sets"), std::string::npos);
  EXPECT_NE(refused({set_of(0, kGetppid), set_of(0, kGetppid)}).find("defined twice"), std::string::npos);
  std::vector<EventSetDefinition> broken{set_of(0, kGetppid)};
  broken[0].next = 7;
  EXPECT_NE(refused(broken).find("event set 7"), std::string::npos);
  std::vector<EventSetDefinition> both{set_of(0, kGetppid)};
  both[0].timeout = std::chrono::milliseconds(1);
  both[0].triggers = {{0, 10, 1}};
  EXPECT_NE(refused(both).find("one way"), std::string::npos);
  std::vector<EventSetDefinition> far{set_of(0, kGetppid)};
  far[0].triggers = {{3, 10, 1}};
  EXPECT_NE(refused(far).find("names event 3"), std::string::npos);
  EventSetOptions first;
  first.first = 2;
  EXPECT_NE(refused({set_of(0, kGetppid)}, first).find("first set"), std::string::npos);
}

}  // namespace
}  // namespace perfmon
