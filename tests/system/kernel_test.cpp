// The kernel-interface layer on its own: ioctls, ids, overflow signals, feature probes.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>

#include "../helpers/overflow_signal.hpp"
#include "kernel/perf_event.hpp"
#include "kernel/read_format.hpp"
#include "perfmon/error.hpp"

namespace perfmon::kernel {
namespace {

perf_event_attr software(std::uint64_t config) {
  perf_event_attr attr{};
  attr.size = sizeof attr;
  attr.type = PERF_TYPE_SOFTWARE;
  attr.config = config;
  attr.disabled = 1;
  return attr;
}

TEST(KernelInterface, OpenEventExplainsFailures) {
  perf_event_attr attr = software(PERF_COUNT_SW_TASK_CLOCK);
  try {
    open_event(attr, 999999999, -1, -1, 0, "task-clock");
    FAIL();
  } catch (const Error& error) {
    EXPECT_EQ(error.errnum(), ESRCH);
    EXPECT_STREQ(error.what(),
                 "cannot open event 'task-clock': no such process or thread 999999999 (it may have exited).");
  }
}

TEST(KernelInterface, EventIdsAreDistinctAndMatchGroupReads) {
  perf_event_attr attr = software(PERF_COUNT_SW_TASK_CLOCK);
  attr.read_format = PERF_FORMAT_GROUP | PERF_FORMAT_ID;
  FileDescriptor leader = open_event(attr, 0, -1, -1, 0, "task-clock");
  attr.disabled = 0;
  attr.config = PERF_COUNT_SW_PAGE_FAULTS;
  FileDescriptor member = open_event(attr, 0, -1, leader.get(), 0, "page-faults");
  std::uint64_t leader_id = event_id(leader.get()), member_id = event_id(member.get());
  EXPECT_NE(leader_id, 0u);
  EXPECT_NE(leader_id, member_id);
  ASSERT_EQ(enable(leader.get(), true), 0);
  ASSERT_EQ(disable(leader.get(), true), 0);
  std::uint64_t words[8];
  ssize_t got = read(leader.get(), words, sizeof words);
  GroupReadLayout layout(attr.read_format);
  ASSERT_EQ(layout.members(words, static_cast<std::size_t>(got) / 8), 2);
  EXPECT_EQ(layout.id(words, 0), leader_id);
  EXPECT_EQ(layout.id(words, 1), member_id);
}

TEST(KernelInterface, ResetZeroesTheGroup) {
  perf_event_attr attr = software(PERF_COUNT_SW_TASK_CLOCK);
  FileDescriptor fd = open_event(attr, 0, -1, -1, 0, "task-clock");
  ASSERT_EQ(enable(fd.get(), true), 0);
  volatile int sink = 0;
  for (int i = 0; i < 100000; ++i) sink = sink + 1;
  ASSERT_EQ(disable(fd.get(), true), 0);
  std::uint64_t before = 0, after = 0;
  ASSERT_EQ(read(fd.get(), &before, sizeof before), 8);
  EXPECT_GT(before, 0u);
  ASSERT_EQ(reset(fd.get(), true), 0);
  ASSERT_EQ(read(fd.get(), &after, sizeof after), 8);
  EXPECT_EQ(after, 0u);
}

TEST(KernelInterface, PeriodRejectsZeroAndAcceptsAValue) {
  perf_event_attr attr = software(PERF_COUNT_SW_TASK_CLOCK);
  attr.sample_period = 1000000;
  FileDescriptor fd = open_event(attr, 0, -1, -1, 0, "task-clock");
  EXPECT_EQ(set_period(fd.get(), 0), -EINVAL);
  EXPECT_EQ(set_period(fd.get(), 500000), 0);
}

TEST(KernelInterface, RefreshDeliversExactlyThatManyOverflowSignals) {
  const int signo = SIGRTMIN + 1;
  perf_event_attr attr = software(PERF_COUNT_SW_TASK_CLOCK);
  attr.sample_period = 200000;  // 0.2 ms of this thread's CPU time
  attr.wakeup_events = 1;
  FileDescriptor fd = open_event(attr, 0, -1, -1, 0, "task-clock");
  sigset_t set = arm_overflow_signal(fd.get(), signo);
  ASSERT_TRUE(sigismember(&set, signo));
  ASSERT_EQ(refresh(fd.get(), 3), 0);  // enables it for three overflows, then disables it
  int signals = 0, hangups = 0;
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(2);
  timespec zero{};
  while (std::chrono::steady_clock::now() < deadline) {  // burn CPU; bounded, the count is exact
    siginfo_t info;
    if (sigtimedwait(&set, &info, &zero) == signo) {
      ++signals;
      if (info.si_code == POLL_HUP) ++hangups;
      EXPECT_EQ(info.si_fd, fd.get());
    }
    if (hangups > 0 && std::chrono::steady_clock::now() > deadline - std::chrono::milliseconds(1500)) break;
  }
  EXPECT_EQ(signals, 3);
  EXPECT_EQ(hangups, 1);  // the last one says the event disabled itself
  pthread_sigmask(SIG_UNBLOCK, &set, nullptr);
}

TEST(KernelInterface, SetOutputSharesAnotherEventsRingBuffer) {
  perf_event_attr attr = software(PERF_COUNT_SW_DUMMY);
  attr.sample_period = 1;
  FileDescriptor first = open_event(attr, 0, -1, -1, 0, "dummy");
  FileDescriptor second = open_event(attr, 0, -1, -1, 0, "dummy");
  long page = sysconf(_SC_PAGESIZE);
  void* ring = mmap(nullptr, static_cast<std::size_t>(2 * page), PROT_READ | PROT_WRITE, MAP_SHARED, first.get(), 0);
  ASSERT_NE(ring, MAP_FAILED);
  EXPECT_EQ(set_output(second.get(), first.get()), 0);
  EXPECT_EQ(set_output(second.get(), -1), 0);  // and detach again
  munmap(ring, static_cast<std::size_t>(2 * page));
}

TEST(KernelInterface, LostFormatProbeMatchesTheKernel) {
  perf_event_attr attr = software(PERF_COUNT_SW_DUMMY);
  attr.read_format = PERF_FORMAT_LOST;
  int fd = perf_event_open_raw(attr, 0, -1, -1, 0);
  EXPECT_EQ(fd >= 0, supports_format_lost());
  if (fd >= 0) close(fd);
}

}  // namespace
}  // namespace perfmon::kernel
