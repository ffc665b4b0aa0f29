// SPDX-License-Identifier: Apache-2.0
// The kernel-interface layer on its own: ioctls, ids, overflow signals, feature probes, the ring buffer.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <optional>
#include <string>

#include "../helpers/overflow_signal.hpp"
#include "events/sources/tracefs.hpp"
#include "kernel/fd.hpp"
#include "kernel/mmap.hpp"
#include "kernel/perf_event.hpp"
#include "kernel/read_format.hpp"
#include "kernel/records.hpp"
#include "kernel/sample_layout.hpp"

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

// Opens on the calling thread; a failed open fails the test.
FileDescriptor open_event(const perf_event_attr& attr, int group_fd = -1) {
  int fd = perf_event_open(attr, 0, -1, group_fd, 0);
  EXPECT_GE(fd, 0) << "perf_event_open: errno " << -fd;
  return FileDescriptor(fd);
}

TEST(KernelInterface, OpenReturnsTheErrno) {
  EXPECT_EQ(perf_event_open(software(PERF_COUNT_SW_TASK_CLOCK), 999999999, -1, -1, 0), -ESRCH);
}

TEST(KernelInterface, EventIdsAreDistinctAndMatchGroupReads) {
  perf_event_attr attr = software(PERF_COUNT_SW_TASK_CLOCK);
  attr.read_format = PERF_FORMAT_GROUP | PERF_FORMAT_ID;
  FileDescriptor leader = open_event(attr);
  attr.disabled = 0;
  attr.config = PERF_COUNT_SW_PAGE_FAULTS;
  FileDescriptor member = open_event(attr, leader.get());
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
  FileDescriptor fd = open_event(attr);
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
  FileDescriptor fd = open_event(attr);
  EXPECT_EQ(set_period(fd.get(), 0), -EINVAL);
  EXPECT_EQ(set_period(fd.get(), 500000), 0);
}

TEST(KernelInterface, RefreshDeliversExactlyThatManyOverflowSignals) {
  const int signo = SIGRTMIN + 1;
  perf_event_attr attr = software(PERF_COUNT_SW_TASK_CLOCK);
  attr.sample_period = 200000;  // 0.2 ms of this thread's CPU time
  attr.wakeup_events = 1;
  FileDescriptor fd = open_event(attr);
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
  FileDescriptor first = open_event(attr);
  FileDescriptor second = open_event(attr);
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
  int fd = perf_event_open(attr, 0, -1, -1, 0);
  EXPECT_EQ(fd >= 0, supports_format_lost());
  if (fd >= 0) close(fd);
}

// Sampling getppid(2)'s tracepoint at period 1 is exact: one sample per call of this thread.
class Ring : public ::testing::Test {
 protected:
  void SetUp() override {
    const events::TracefsLocation tracefs = events::find_tracefs();  // mounted where it may be, as the catalogue does
    if (tracefs.root.empty()) GTEST_SKIP() << tracefs.problem;
    const std::string& root = tracefs.root;
    tracepoint_ = events::tracepoint_id(root, "syscalls", "sys_enter_getppid");
    if (!tracepoint_) GTEST_SKIP() << "this kernel has no syscalls:sys_enter_getppid tracepoint";
  }

  // Opens the sampler with these fields, maps `pages` pages of ring and enables it.
  void open(std::uint64_t sample_type, std::size_t pages) {
    attr_.size = sizeof attr_;
    attr_.type = PERF_TYPE_TRACEPOINT;
    attr_.config = *tracepoint_;
    attr_.sample_period = 1;
    attr_.sample_type = sample_type;
    attr_.sample_id_all = 1;
    attr_.disabled = 1;
    attr_.comm = 1;
    fd_ = open_event(attr_);
    ASSERT_EQ(mapping_.map(fd_.get(), pages), 0);
    ASSERT_EQ(enable(fd_.get(), false), 0);
  }

  std::optional<std::uint64_t> tracepoint_;
  perf_event_attr attr_{};
  FileDescriptor fd_;
  EventMapping mapping_;
};

TEST_F(Ring, EveryCallIsOneSampleOfThisThread) {
  open(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU |
           PERF_SAMPLE_PERIOD,
       8);
  constexpr int kCalls = 100;
  for (int i = 0; i < kCalls; ++i) syscall(SYS_getppid);
  ASSERT_EQ(disable(fd_.get(), false), 0);
  const std::uint64_t id = event_id(fd_.get());
  SampleLayout layout(attr_);
  RingReader reader = mapping_.ring();
  reader.begin();
  int samples = 0;
  for (const perf_event_header* record = reader.next(); record != nullptr; record = reader.next()) {
    if (record->type != PERF_RECORD_SAMPLE) continue;
    Sample sample;
    ASSERT_TRUE(layout.decode(*record, sample));
    EXPECT_EQ(sample.identifier, id);
    EXPECT_EQ(sample.tid, static_cast<std::uint32_t>(syscall(SYS_gettid)));
    EXPECT_EQ(sample.pid, static_cast<std::uint32_t>(getpid()));
    EXPECT_EQ(sample.period, 1u);
    ++samples;
  }
  reader.consume();
  EXPECT_FALSE(reader.corrupt());
  EXPECT_EQ(samples, kCalls);
}

TEST_F(Ring, DrainedAsItFillsEveryRecordArrivesWholeAcrossTheWrap) {
  // One data page, drained every 50 calls: the ring wraps many times, records straddle its end.
  open(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_PERIOD |
           PERF_SAMPLE_RAW,
       1);
  RingReader reader = mapping_.ring();
  SampleLayout layout(attr_);
  int samples = 0, lost = 0, wrong = 0;
  std::uint64_t last_time = 0;
  std::size_t bytes = 0;
  constexpr int kCalls = 2000;
  for (int i = 0; i < kCalls; ++i) {
    syscall(SYS_getppid);
    if (i % 50 != 49) continue;
    bytes += reader.begin();
    for (const perf_event_header* record = reader.next(); record != nullptr; record = reader.next()) {
      if (record->type == PERF_RECORD_LOST) lost += static_cast<int>(record_as<LostRecord>(record)->lost);
      if (record->type != PERF_RECORD_SAMPLE) continue;
      Sample sample;
      // The raw data is the tracepoint's fields; a torn record would fail to decode or go back in time.
      if (!layout.decode(*record, sample) || sample.time < last_time || sample.raw.empty()) ++wrong;
      last_time = sample.time;
      ++samples;
    }
    reader.consume();
  }
  ASSERT_EQ(disable(fd_.get(), false), 0);
  EXPECT_GT(bytes, 10 * mapping_.ring_bytes()) << "the ring should have wrapped around many times";
  EXPECT_EQ(wrong, 0);
  EXPECT_EQ(samples + lost, kCalls);
  EXPECT_EQ(lost, 0) << "50 samples fit in a page; none should be lost";
}

TEST_F(Ring, CommRecordsCarryTheSampleIdTrailer) {
  open(PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_IDENTIFIER, 8);
  char old_name[16] = {};
  prctl(PR_GET_NAME, old_name);
  prctl(PR_SET_NAME, "perfmon-ring");  // a PERF_RECORD_COMM for this thread
  prctl(PR_SET_NAME, old_name);
  ASSERT_EQ(disable(fd_.get(), false), 0);
  SampleLayout layout(attr_);
  RingReader reader = mapping_.ring();
  reader.begin();
  bool found = false;
  for (const perf_event_header* record = reader.next(); record != nullptr; record = reader.next()) {
    const CommRecord* comm = record->type == PERF_RECORD_COMM ? record_as<CommRecord>(record) : nullptr;
    if (comm == nullptr || record_text(comm) != "perfmon-ring") continue;
    SampleId id;
    ASSERT_TRUE(layout.decode_id(*record, id));
    EXPECT_EQ(id.tid, static_cast<std::uint32_t>(syscall(SYS_gettid)));
    EXPECT_EQ(id.id, event_id(fd_.get()));
    EXPECT_EQ(record_identifier(*record), id.id);
    found = true;
  }
  EXPECT_TRUE(found);
}

}  // namespace
}  // namespace perfmon::kernel
