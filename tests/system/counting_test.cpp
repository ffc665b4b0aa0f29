// SPDX-License-Identifier: Apache-2.0
// The library against the running kernel, with counts known exactly: a tracepoint on a system
// call made N times counts N. (Breakpoints, which some hypervisors never fire, are in pmu_test.cpp,
// which the emulated-PMU rig runs.)
#include <gtest/gtest.h>
#include <linux/perf_event.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>
#include <string>
#include <thread>
#include <vector>

#include "../helpers/system_calls.hpp"
#include "perfmon/catalog.hpp"
#include "perfmon/error.hpp"
#include "perfmon/scope.hpp"
#include "perfmon/session.hpp"
#include "perfmon/stat.hpp"
#include "perfmon/workload.hpp"

// Counts heap allocations so that a test can prove the read path makes none.
static std::atomic<long> g_allocations{0};
static void* counted_malloc(std::size_t size) noexcept {
  g_allocations.fetch_add(1, std::memory_order_relaxed);
  return std::malloc(size ? size : 1);
}
void* operator new(std::size_t size) {
  if (void* p = counted_malloc(size)) return p;
  throw std::bad_alloc();
}
void* operator new[](std::size_t size) {
  return operator new(size);
}
void* operator new(std::size_t size, const std::nothrow_t&) noexcept {
  return counted_malloc(size);
}
void* operator new[](std::size_t size, const std::nothrow_t&) noexcept {
  return counted_malloc(size);
}
void operator delete(void* p) noexcept {
  std::free(p);
}
void operator delete[](void* p) noexcept {
  std::free(p);
}
void operator delete(void* p, std::size_t) noexcept {
  std::free(p);
}
void operator delete[](void* p, std::size_t) noexcept {
  std::free(p);
}
void operator delete(void* p, const std::nothrow_t&) noexcept {
  std::free(p);
}
void operator delete[](void* p, const std::nothrow_t&) noexcept {
  std::free(p);
}

namespace perfmon {
namespace {

using testing::call_getppid;
using testing::catalog;

constexpr long kCalls = 1000;

SessionOptions no_inherit() {
  SessionOptions options;
  options.inherit = false;
  return options;
}

TEST(Counting, TracepointCountsEverySystemCallOfTheCallingThread) {
  CounterSession session(catalog().parse("syscalls:sys_enter_getppid"), Target::self(), no_inherit());
  session.start();
  call_getppid(kCalls);
  session.stop();
  ASSERT_EQ(session.read(), 0);
  CounterValue value = session.value(0);
  EXPECT_EQ(value.raw, static_cast<std::uint64_t>(kCalls));
  EXPECT_GT(value.enabled, 0u);
  EXPECT_EQ(value.enabled, value.running);  // a tracepoint is never multiplexed
}

// The session's Reading holds what its accessors give, per event and location, and its notes.
TEST(Counting, ReadingHoldsTheSessionsEventsValuesAndNotes) {
  CounterSession session(catalog().parse("syscalls:sys_enter_getppid,task-clock"), Target::self(), no_inherit());
  session.start();
  call_getppid(kCalls);
  session.stop();
  ASSERT_EQ(session.read(), 0);
  const Reading reading = session.reading();
  ASSERT_EQ(reading.events.size(), 2u);
  ASSERT_EQ(reading.locations.size(), session.locations().size());
  EXPECT_EQ(reading.events[0].event.name, "syscalls:sys_enter_getppid");
  EXPECT_EQ(reading.events[0].value.raw, static_cast<std::uint64_t>(kCalls));
  ASSERT_EQ(reading.events[0].at.size(), reading.locations.size());
  EXPECT_EQ(reading.events[0].at[0].raw, static_cast<std::uint64_t>(kCalls));
  EXPECT_TRUE(reading.events[0].supported);
  EXPECT_TRUE(reading.events[0].label.empty());
  EXPECT_EQ(reading.notes, session.notes());
  EXPECT_TRUE(reading.summary.empty());
  EXPECT_FALSE(reading.emulated);
  EXPECT_EQ(stat_rows(reading).front().value.raw, static_cast<std::uint64_t>(kCalls));
}

TEST(Counting, GroupIsReadAtomicallyWithOneRead) {
  CounterSession session(catalog().parse("{syscalls:sys_enter_getppid,syscalls:sys_exit_getppid,task-clock}"),
                         Target::self(), no_inherit());
  session.start();
  call_getppid(kCalls);
  session.stop();
  ASSERT_EQ(session.read(), 0);
  EXPECT_EQ(session.value(0).raw, static_cast<std::uint64_t>(kCalls));
  EXPECT_EQ(session.value(1).raw, static_cast<std::uint64_t>(kCalls));
  EXPECT_GT(session.value(2).raw, 0u);
  // One group, one header: the members share the leader's times.
  EXPECT_EQ(session.value(0).enabled, session.value(1).enabled);
}

TEST(Counting, StopHoldsAndResetZeroes) {
  CounterSession session(catalog().parse("syscalls:sys_enter_getppid"), Target::self(), no_inherit());
  session.start();
  call_getppid(10);
  session.stop();
  call_getppid(10);  // not counted
  ASSERT_EQ(session.read(), 0);
  EXPECT_EQ(session.value(0).raw, 10u);
  session.start();
  call_getppid(5);
  session.stop();
  ASSERT_EQ(session.read(), 0);
  EXPECT_EQ(session.value(0).raw, 15u);
  session.reset();
  ASSERT_EQ(session.read(), 0);
  EXPECT_EQ(session.value(0).raw, 0u);
}

TEST(Counting, ReadAllocatesNothing) {
  CounterSession session(catalog().parse("{task-clock,page-faults,context-switches,syscalls:sys_enter_getppid}"),
                         Target::self(), no_inherit());
  session.start();
  call_getppid(3);
  long before = g_allocations.load();
  for (int i = 0; i < 100; ++i) ASSERT_EQ(session.read(), 0);
  CounterValue value = session.value(3);
  EXPECT_EQ(g_allocations.load(), before);
  EXPECT_EQ(value.raw, 3u);
}

TEST(Counting, InheritCountsThreadsCreatedAfterTheStart) {
  CounterSession session(catalog().parse("syscalls:sys_enter_getppid"), Target::self());  // inherit on
  session.start();
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) threads.emplace_back(call_getppid, kCalls);
  for (std::thread& thread : threads) thread.join();
  session.stop();
  ASSERT_EQ(session.read(), 0);
  EXPECT_EQ(session.value(0).raw, static_cast<std::uint64_t>(4 * kCalls));
}

TEST(Counting, WithoutInheritOtherThreadsAreNotCounted) {
  CounterSession session(catalog().parse("syscalls:sys_enter_getppid"), Target::self(), no_inherit());
  session.start();
  std::thread other(call_getppid, kCalls);
  other.join();
  call_getppid(7);
  session.stop();
  ASSERT_EQ(session.read(), 0);
  EXPECT_EQ(session.value(0).raw, 7u);
}

std::uint64_t count_workload(std::vector<std::string> argv, bool inherit) {
  Workload workload(std::move(argv));
  SessionOptions options;
  options.inherit = inherit;
  CounterSession session(catalog().parse("syscalls:sys_enter_getppid"), Target::workload(workload), options);
  workload.start();
  WorkloadExit exit;
  while (!workload.wait(exit)) {
  }
  EXPECT_EQ(exit.exit_code(), 0);
  EXPECT_EQ(session.read(), 0);
  return session.value(0).raw;
}

TEST(Counting, WorkloadIsCountedFromItsExec) {
  EXPECT_EQ(count_workload({WORKER, "getppid", "1000"}, true), 1000u);
}

TEST(Counting, ForkedChildIsIncludedWithInheritAndExcludedWithout) {
  EXPECT_EQ(count_workload({WORKER, "getppid", "1000", "--fork-child", "300"}, true), 1300u);
  EXPECT_EQ(count_workload({WORKER, "getppid", "1000", "--fork-child", "300"}, false), 1000u);
}

TEST(Counting, WorkloadThreadsAreInherited) {
  EXPECT_EQ(count_workload({WORKER, "getppid", "1000", "--threads", "4"}, true), 4000u);
}

TEST(Counting, WorkloadThatCannotStartReportsWhy) {
  Workload workload({"/nonexistent/program"});
  try {
    workload.start();
    FAIL() << "started a program that does not exist";
  } catch (const Error& error) {
    EXPECT_EQ(error.kind(), ErrorKind::CommandFailed);
    EXPECT_EQ(error.errnum(), ENOENT);
    EXPECT_NE(std::string(error.what()).find("cannot run '/nonexistent/program'"), std::string::npos);
  }
}

// A worker that has created its threads and waits for a line on stdin.
class WaitingWorker {
 public:
  explicit WaitingWorker(int threads) {
    int in[2], out[2];
    EXPECT_EQ(pipe(in), 0);
    EXPECT_EQ(pipe(out), 0);
    pid_ = fork();
    if (pid_ == 0) {
      dup2(in[0], 0);
      dup2(out[1], 1);
      execl(WORKER, WORKER, "getppid", "1000", "--threads", std::to_string(threads).c_str(), "--wait-stdin",
            static_cast<char*>(nullptr));
      _exit(127);
    }
    close(in[0]);
    close(out[1]);
    go_ = in[1];
    char line[64] = {};
    EXPECT_GT(read(out[0], line, sizeof line - 1), 0);  // "ready PID"
    close(out[0]);
  }
  ~WaitingWorker() {
    if (go_ >= 0) release();
    int status;
    waitpid(pid_, &status, 0);
  }
  pid_t pid() const { return pid_; }
  void release() {
    EXPECT_EQ(write(go_, "go\n", 3), 3);
    close(go_);
    go_ = -1;
  }
  void wait() {
    int status;
    waitpid(pid_, &status, 0);
    pid_ = -1;
  }

 private:
  pid_t pid_ = -1;
  int go_ = -1;
};

TEST(Counting, AttachToARunningProcessCountsEachThread) {
  WaitingWorker worker(4);
  CounterSession session(catalog().parse("syscalls:sys_enter_getppid"), Target::process(worker.pid()));
  ASSERT_EQ(session.locations().size(), 5u);  // main thread + 4 workers
  session.start();
  worker.release();
  worker.wait();
  ASSERT_EQ(session.read(), 0);
  EXPECT_EQ(session.value(0).raw, 4000u);
  EXPECT_EQ(session.value(0, 0).raw, 0u);  // the main thread only waits
  for (std::size_t location = 1; location < 5; ++location) EXPECT_EQ(session.value(0, location).raw, 1000u);
}

TEST(Counting, SystemWideCountsEveryProcess) {
  CounterSession session(catalog().parse("syscalls:sys_enter_getppid"), Target::all_cpus());
  session.start();
  Workload workload({WORKER, "getppid", "1000"});
  workload.start();
  WorkloadExit exit;
  while (!workload.wait(exit)) {
  }
  session.stop();
  ASSERT_EQ(session.read(), 0);
  // Nothing else on a quiet machine calls getppid(); a stray caller would add a handful.
  EXPECT_GE(session.value(0).raw, 1000u);
  EXPECT_LE(session.value(0).raw, 1000u + 5u);
  EXPECT_EQ(session.locations().size(), static_cast<std::size_t>(sysconf(_SC_NPROCESSORS_ONLN)));
}

TEST(Counting, PageFaultsOfTouchedPages) {
  constexpr long kPages = 2000;
  Workload workload({WORKER, "touch", std::to_string(kPages)});
  CounterSession session(catalog().parse("page-faults"), Target::workload(workload));
  workload.start();
  WorkloadExit exit;
  while (!workload.wait(exit)) {
  }
  ASSERT_EQ(session.read(), 0);
  EXPECT_GE(session.value(0).raw, static_cast<std::uint64_t>(kPages));
  EXPECT_LE(session.value(0).raw, static_cast<std::uint64_t>(kPages + 500));  // the program's own start-up
}

TEST(Counting, ScopedMeasurementCountsItsScope) {
  CounterSession session(catalog().parse("syscalls:sys_enter_getppid"), Target::self(), no_inherit());
  call_getppid(5);
  int status = -1;
  {
    ScopedMeasurement measure(session);
    measure.report_status_to(status);
    call_getppid(42);
  }
  call_getppid(5);
  EXPECT_EQ(status, 0);
  EXPECT_EQ(session.value(0).raw, 42u);
}

TEST(Counting, UnsupportedEventsAreReportedNotFatal) {
  CounterSession session(catalog().parse("cycles,task-clock"), Target::self(), no_inherit());
  if (session.supported(0)) GTEST_SKIP() << "this machine has a hardware PMU: cycles is supported here";
  EXPECT_FALSE(session.unsupported_reason(0).empty());
  EXPECT_NE(session.unsupported_reason(0).find("no hardware PMU is exposed"), std::string::npos)
      << session.unsupported_reason(0);
  EXPECT_TRUE(session.supported(1));
  session.start();
  session.stop();
  ASSERT_EQ(session.read(), 0);
  EXPECT_FALSE(session.value(0).counted());
}

TEST(Counting, StrictSessionFailsOnUnsupportedEvents) {
  SessionOptions strict = no_inherit();
  strict.skip_unsupported = false;
  auto groups = catalog().parse("r1234");
  try {
    CounterSession session(groups, Target::self(), strict);
    GTEST_SKIP() << "raw event r1234 opens on this machine's PMU";
  } catch (const Error& error) {
    EXPECT_NE(error.errnum(), 0);
    EXPECT_NE(std::string(error.what()).find("cannot open event 'r1234'"), std::string::npos) << error.what();
  }
}

TEST(Counting, WeakGroupFallsBackToSeparateEvents) {
  // The kernel takes 'exclusive' only on a group leader: this group cannot be opened whole.
  EXPECT_THROW(
      CounterSession(catalog().parse("{syscalls:sys_enter_getppid,task-clock:e}"), Target::self(), no_inherit()),
      Error);
  CounterSession session(catalog().parse("{syscalls:sys_enter_getppid,task-clock:e}:W"), Target::self(), no_inherit());
  ASSERT_EQ(session.notes().size(), 1u);
  EXPECT_NE(session.notes()[0].find("counted as separate groups"), std::string::npos) << session.notes()[0];
  session.start();
  call_getppid(25);
  session.stop();
  ASSERT_EQ(session.read(), 0);
  EXPECT_EQ(session.value(0).raw, 25u);
  EXPECT_TRUE(session.value(1).counted());
}

TEST(Counting, UserSpaceReadsFallBackToTheSystemCall) {
  SessionOptions options = no_inherit();
  options.user_space_reads = true;
  CounterSession session(catalog().parse("{syscalls:sys_enter_getppid,task-clock}"), Target::self(), options);
  session.start();
  call_getppid(33);
  session.stop();
  ASSERT_EQ(session.read(), 0);
  EXPECT_EQ(session.user_mode_reads(), 0u);  // software events never sit on a hardware counter
  EXPECT_EQ(session.value(0).raw, 33u);
  SessionOptions inherited;
  inherited.user_space_reads = true;
  CounterSession with_inherit(catalog().parse("task-clock"), Target::self(), inherited);
  ASSERT_EQ(with_inherit.notes().size(), 1u);
  EXPECT_NE(with_inherit.notes()[0].find("without inherit"), std::string::npos) << with_inherit.notes()[0];
}

TEST(Counting, NoSuchProcess) {
  try {
    Target::process(999999999);
    FAIL();
  } catch (const Error& error) {
    EXPECT_EQ(error.errnum(), ESRCH);
  }
  try {
    CounterSession session(catalog().parse("task-clock"), Target::thread(999999999));
    FAIL();
  } catch (const Error& error) {
    EXPECT_EQ(error.errnum(), ESRCH);
    EXPECT_NE(std::string(error.what()).find("no such process or thread"), std::string::npos);
  }
}

}  // namespace
}  // namespace perfmon

namespace perfmon {
namespace {

// n ioctls that change nothing (FIONREAD on a pipe): what a region does, seen by sys_enter_ioctl.
void call_ioctl(int n) {
  int pipe_fds[2];
  ASSERT_EQ(pipe(pipe_fds), 0);
  int ready = 0;
  for (int i = 0; i < n; ++i) ioctl(pipe_fds[0], FIONREAD, &ready);
  close(pipe_fds[0]);
  close(pipe_fds[1]);
}

TEST(Calibration, TheStopIoctlIsTheMeasurementsOwnCostAndIsSubtracted) {
  // Two groups, enabled and disabled one after the other: the ioctl group is enabled first, so it
  // sees the ioctl that enables the getppid group, and the ioctl that disables it enters while it
  // counts. An empty region costs exactly two sys_enter_ioctl, and no getppid.
  SessionOptions options;
  options.inherit = false;
  CounterSession session(testing::catalog().parse("syscalls:sys_enter_ioctl,syscalls:sys_enter_getppid"),
                         Target::self(), options);
  EXPECT_FALSE(session.calibrated());
  session.calibrate();
  ASSERT_TRUE(session.calibrated());
  EXPECT_EQ(session.overhead(0), 2u);
  EXPECT_EQ(session.overhead(1), 0u);
  std::vector<std::string> warnings;
  {
    ScopedMeasurement measure(session);
    measure.report_warnings_to(warnings);
    call_ioctl(40);
    testing::call_getppid(3);
  }
  EXPECT_EQ(session.value(0).raw, 42u);
  EXPECT_EQ(session.value(0, Overhead::Subtract).raw, 40u);
  EXPECT_EQ(session.value(1, Overhead::Subtract).raw, 3u);
  EXPECT_TRUE(warnings.empty()) << warnings.front();  // 2 of 42 is under 5%
  {
    ScopedMeasurement measure(session);
    measure.report_warnings_to(warnings);
    call_ioctl(4);
  }
  EXPECT_EQ(session.value(0, Overhead::Subtract).raw, 4u);
  ASSERT_EQ(warnings.size(), 1u);  // 2 of 6: 33%
  EXPECT_NE(warnings[0].find("region too small: the measurement itself is 33% of this count of "
                             "'syscalls:sys_enter_ioctl' (2 of 6)"),
            std::string::npos)
      << warnings[0];
}

TEST(Calibration, OnlyTheCallingThreadCanBeCalibrated) {
  Workload workload({WORKER, "exit", "0"});
  CounterSession session(testing::catalog().parse("task-clock"), Target::workload(workload));
  EXPECT_THROW(session.calibrate(), Error);
}

// Solaris cpc's preset counter: an event armed for one overflow after P events signals the thread
// once, stops itself exactly there, and counts P more after a rearm. Page faults, not a tracepoint:
// the kernel does not restart a tracepoint that its refresh count stopped (docs/sampling.md).
TEST(OverflowSignals, AnEventStopsItselfAtItsOverflowAndSignalsTheThread) {
  const int signo = SIGRTMIN + 5;
  sigset_t blocked, old;
  sigemptyset(&blocked);
  sigaddset(&blocked, signo);
  ASSERT_EQ(pthread_sigmask(SIG_BLOCK, &blocked, &old), 0);
  SessionOptions options = no_inherit();
  options.overflow_periods = {0, 30};
  options.overflow_signal = signo;
  options.stop_after = 1;
  CounterSession session(catalog().parse("syscalls:sys_enter_getppid,page-faults"), Target::self(), options);
  session.start();
  testing::touch_fresh_pages(100);
  ASSERT_EQ(session.read(), 0);
  EXPECT_EQ(session.value(1).raw, 30u);  // stopped at the overflow, not after
  siginfo_t info{};
  timespec none{};
  ASSERT_EQ(sigtimedwait(&blocked, &info, &none), signo);
  EXPECT_EQ(info.si_code, POLL_HUP);  // the last (here the only) overflow of stop_after
  EXPECT_EQ(session.event_of_fd(info.si_fd), 1);
  EXPECT_EQ(info.si_fd, session.fd(1));
  EXPECT_EQ(sigtimedwait(&blocked, &info, &none), -1);  // one overflow, one signal

  EXPECT_EQ(session.rearm(1, 20), 0);
  testing::touch_fresh_pages(100);
  session.stop();
  ASSERT_EQ(session.read(), 0);
  EXPECT_EQ(session.value(1).raw, 50u);
  EXPECT_EQ(sigtimedwait(&blocked, &info, &none), signo);
  EXPECT_EQ(session.rearm(0, 10), EINVAL);  // the tracepoint has no overflow period
  EXPECT_EQ(session.event_of_fd(-5), -1);
  ASSERT_EQ(pthread_sigmask(SIG_SETMASK, &old, nullptr), 0);
}

TEST(OverflowSignals, NeedTheCallingThreadWithoutInherit) {
  SessionOptions options;  // inherit on
  options.overflow_periods = {100};
  options.overflow_signal = SIGRTMIN + 5;
  EXPECT_THROW(CounterSession(catalog().parse("syscalls:sys_enter_getppid"), Target::self(), options), Error);
  options.inherit = false;
  options.overflow_periods = {100, 100};  // more periods than events
  EXPECT_THROW(CounterSession(catalog().parse("syscalls:sys_enter_getppid"), Target::self(), options), Error);
}

// Reads a byte of each of `pages` pages. Not instrumented: AddressSanitizer would fault in the
// shadow of the pages too.
[[gnu::noinline, gnu::no_sanitize_address]] void read_pages(const char* memory, std::size_t pages, std::size_t page) {
  for (std::size_t i = 0; i < pages; ++i) (void)*static_cast<const volatile char*>(memory + i * page);
}

// perf's --filter: a tracepoint counts only the occurrences that pass a filter over its fields.
// Writes to fresh pages fault with the write bit (2) of error_code set; reads of fresh pages without.
TEST(TracepointFilters, SplitPageFaultsIntoReadsAndWrites) {
  if (::access("/sys/kernel/tracing/events", R_OK | X_OK) != 0 && ::access("/sys/kernel/tracing", F_OK) == 0)
    GTEST_SKIP() << "this user may not read tracefs (/sys/kernel/tracing is root's only): run the suite as root, or "
                    "let others read it (sudo chmod go+rx /sys/kernel/tracing)";
  if (::access("/sys/kernel/tracing/events/exceptions/page_fault_user", F_OK) != 0 &&
      ::access("/sys/kernel/debug/tracing/events/exceptions/page_fault_user", F_OK) != 0)
    GTEST_SKIP() << "this kernel has no exceptions:page_fault_user tracepoint (x86 has it)";
  CounterSession session(catalog().parse("exceptions:page_fault_user,exceptions:page_fault_user"), Target::self(),
                         no_inherit());
  session.set_filter(0, "error_code & 2");
  session.set_filter(1, "!(error_code & 2)");
  testing::touch_fresh_pages(1);  // the first touch of the helper's code and data, out of the count
  const std::size_t page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  char* memory = static_cast<char*>(mmap(nullptr, 50 * page, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
  ASSERT_NE(memory, MAP_FAILED);
  madvise(memory, 50 * page, MADV_NOHUGEPAGE);
  session.start();
  testing::touch_fresh_pages(100);
  read_pages(memory, 50, page);
  session.stop();
  munmap(memory, 50 * page);
  ASSERT_EQ(session.read(), 0);
  EXPECT_EQ(session.value(0).raw, 100u);
  EXPECT_EQ(session.value(1).raw, 50u);
  EXPECT_THROW(session.set_filter(1, "no_such_field == 1"), Error);
  CounterSession software(catalog().parse("page-faults"), Target::self(), no_inherit());
  EXPECT_THROW(software.set_filter(0, "error_code & 2"), Error);
}

}  // namespace
}  // namespace perfmon
