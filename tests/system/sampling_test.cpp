// SPDX-License-Identifier: Apache-2.0
// The sampler against the running kernel, with sample counts known exactly: a tracepoint on a
// system call sampled at period 1 gives one sample per call, attributed to the right event and
// thread; what a full ring cannot take is counted as lost, never silently missing.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <set>
#include <string>
#include <vector>

#include "../helpers/system_calls.hpp"
#include "perfmon/catalog.hpp"
#include "perfmon/error.hpp"
#include "perfmon/random_period.hpp"
#include "perfmon/sampler.hpp"
#include "perfmon/workload.hpp"

namespace perfmon {
namespace {

using testing::call_getppid;
using testing::catalog;
using testing::touch;
using testing::touch_fresh_pages;

// Keeps what the tests check of each sample.
struct Kept : SampleHandler {
  std::vector<std::size_t> per_event = std::vector<std::size_t>(4);
  std::set<std::uint32_t> pids, tids;
  std::set<std::uint64_t> periods;  // as the samples say (with PERF_SAMPLE_PERIOD)
  std::size_t other_records = 0;
  void sample(std::size_t event, const Sample& sample) override {
    ++per_event.at(event);
    pids.insert(sample.pid);
    tids.insert(sample.tid);
    periods.insert(sample.period);
  }
  void record(const perf_event_header&) override { ++other_records; }
};

SamplingOptions every_event() {
  SamplingOptions options;
  options.period = 1;
  options.inherit = false;
  return options;
}

TEST(Sampling, TracepointAtPeriodOneSamplesEveryCallOfTheCallingThread) {
  Sampler sampler(catalog().parse("syscalls:sys_enter_getppid"), Target::self(), every_event());
  sampler.start();
  call_getppid(1000);
  sampler.stop();
  Kept kept;
  EXPECT_EQ(sampler.drain(kept), 1000u);
  EXPECT_EQ(kept.per_event[0], 1000u);
  EXPECT_EQ(kept.pids, std::set<std::uint32_t>{static_cast<std::uint32_t>(getpid())});
  EXPECT_EQ(kept.tids, std::set<std::uint32_t>{static_cast<std::uint32_t>(gettid())});
  EXPECT_EQ(sampler.stats().samples, 1000u);
  EXPECT_EQ(sampler.stats().lost_records, 0u);
  EXPECT_EQ(sampler.stats().undecodable, 0u);
  // Drained: nothing is handed out twice.
  EXPECT_EQ(sampler.drain(kept), 0u);
}

// `calls` getppid() calls of this thread, sampled with these options.
Kept sample_getppid_calls(const SamplingOptions& options, long calls) {
  Sampler sampler(catalog().parse("syscalls:sys_enter_getppid"), Target::self(), options);
  sampler.start();
  call_getppid(calls);
  sampler.stop();
  Kept kept;
  sampler.drain(kept);
  return kept;
}

TEST(Sampling, TracepointAtPeriodNSamplesEveryNthCall) {
  SamplingOptions options = every_event();
  options.period = 100;
  const Kept kept = sample_getppid_calls(options, 1050);
  EXPECT_EQ(kept.per_event[0], 10u);
  EXPECT_EQ(kept.periods, std::set<std::uint64_t>{100}) << "each sample says the period that ran out";
}

// The kernel's rule for software events, tracepoints and breakpoints, pinned here because it would
// silently turn a sampler into a tracer: with PERF_SAMPLE_PERIOD and a fixed period, every
// occurrence is a sample whose period is 1.
TEST(Sampling, PeriodFieldMakesASoftwareEventSampleEveryOccurrence) {
  SamplingOptions options = every_event();
  options.period = 100;
  options.sample_type = kDefaultSampleType | PERF_SAMPLE_PERIOD;
  const Kept kept = sample_getppid_calls(options, 1050);
  EXPECT_EQ(kept.per_event[0], 1050u);
  EXPECT_EQ(kept.periods, std::set<std::uint64_t>{1});
}

// PERF_SAMPLE_READ: each sample of the enter tracepoint reads the group at that moment, exactly —
// the 100·i-th call entered, 100·i - 1 returned.
TEST(Sampling, SamplesReadTheirWholeGroupAtThatMoment) {
  SamplingOptions options = every_event();
  options.period = 100;
  options.sample_type = kDefaultSampleType | PERF_SAMPLE_READ;
  Sampler sampler(catalog().parse("{syscalls:sys_enter_getppid,syscalls:sys_exit_getppid}"), Target::self(), options);
  struct Readings : SampleHandler {
    const Sampler* sampler = nullptr;
    std::vector<std::pair<std::uint64_t, std::uint64_t>> entered_returned;
    void sample(std::size_t event, const Sample& sample) override {
      if (event != 0) return;
      SampledValue values[4];
      ASSERT_EQ(sampler->group_values(sample, values), 2u);
      EXPECT_EQ(values[0].event, 0u);
      EXPECT_EQ(values[1].event, 1u);
      EXPECT_TRUE(values[0].value.counted());
      entered_returned.emplace_back(values[0].value.raw, values[1].value.raw);
    }
  } readings;
  readings.sampler = &sampler;
  sampler.start();
  call_getppid(1000);
  sampler.stop();
  sampler.drain(readings);
  ASSERT_EQ(readings.entered_returned.size(), 10u);
  for (std::size_t i = 0; i < 10; ++i) {
    EXPECT_EQ(readings.entered_returned[i].first, 100 * (i + 1));
    EXPECT_EQ(readings.entered_returned[i].second, 100 * (i + 1) - 1);
  }
}

TEST(Sampling, EventsSharingARingAreToldApartByTheirIds) {
  Sampler sampler(catalog().parse("{syscalls:sys_enter_getppid,syscalls:sys_exit_getppid},syscalls:sys_enter_getpid"),
                  Target::self(), every_event());
  sampler.start();
  call_getppid(300);
  for (int i = 0; i < 200; ++i) syscall(SYS_getpid);
  sampler.stop();
  Kept kept;
  sampler.drain(kept);
  EXPECT_EQ(kept.per_event[0], 300u);
  EXPECT_EQ(kept.per_event[1], 300u);
  EXPECT_EQ(kept.per_event[2], 200u);
  EXPECT_EQ(sampler.stats().undecodable, 0u);
}

// A command's threads, inherited, drained while it runs until every thread has gone.
TEST(Sampling, WorkloadThreadsAreSampledUntilTheyAllExit) {
  Workload workload({WORKER, "getppid", "1000", "--threads", "4"});
  SamplingOptions options = every_event();
  options.inherit = true;
  Sampler sampler(catalog().parse("syscalls:sys_enter_getppid"), Target::workload(workload), options);
  workload.start();
  Kept kept;
  while (!sampler.finished()) {
    sampler.wait(1000);
    sampler.drain(kept);
  }
  WorkloadExit exit;
  ASSERT_TRUE(workload.wait(exit));
  sampler.drain(kept);
  EXPECT_EQ(kept.per_event[0], 4000u);
  EXPECT_EQ(kept.pids, std::set<std::uint32_t>{static_cast<std::uint32_t>(workload.pid())});
  EXPECT_EQ(kept.tids.size(), 4u);
  EXPECT_EQ(sampler.stats().lost_records, 0u);
}

// One page of ring for 20,000 samples, read only at the end: the kernel drops what does not fit
// and, at its next write into the ring, says how many. Every call is a sample or counted lost.
TEST(Sampling, WhatAFullRingDropsIsCountedExactly) {
  SamplingOptions options = every_event();
  options.ring_pages = 1;
  Sampler sampler(catalog().parse("syscalls:sys_enter_getppid"), Target::self(), options);
  sampler.start();
  call_getppid(20000);
  Kept kept;
  sampler.drain(kept);  // makes room for the kernel's PERF_RECORD_LOST
  call_getppid(1);
  sampler.stop();
  sampler.drain(kept);
  EXPECT_GT(sampler.stats().lost_records, 0u) << "one page should not hold 20,000 samples";
  EXPECT_EQ(kept.per_event[0] + sampler.stats().lost_records, 20001u);
  // Only samples go to this ring: the event's own count of lost samples says the same.
  const RecordLoss lost = sampler.lost();
  if (lost.samples_known) {
    EXPECT_EQ(lost.samples, sampler.stats().lost_records);
  }
  EXPECT_EQ(sampler.stats().records, kept.other_records);
  EXPECT_EQ(sampler.stats().corrupt_rings, 0u);
}

// Solaris cpc's overflow signal with a preset counter, exactly: the first notification after N
// events, the event stopped after K of them until the handler re-arms it with a new period. Page
// faults, not a tracepoint: the kernel does not restart a tracepoint event that its refresh count
// stopped (docs/sampling.md).
TEST(Sampling, OverflowSignalsComeAtThePresetAndStopAfterTheLimit) {
  const int signo = SIGRTMIN + 3;
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, signo);
  pthread_sigmask(SIG_BLOCK, &set, nullptr);  // taken below with sigtimedwait
  SamplingOptions options = every_event();
  options.period = 25;
  options.overflow_signal = signo;
  options.stop_after = 3;
  Sampler sampler(catalog().parse("page-faults"), Target::self(), options);
  std::vector<int> codes;
  codes.reserve(16);
  int fd = -1;
  auto take_signals = [&] {
    codes.clear();
    siginfo_t info;
    timespec none{};
    while (sigtimedwait(&set, &info, &none) == signo) {
      codes.push_back(info.si_code);
      fd = info.si_fd;
    }
  };
  sampler.start();
  touch_fresh_pages(100);  // overflows at 25, 50, 75; then the event stops
  take_signals();
  EXPECT_EQ(codes, (std::vector<int>{POLL_IN, POLL_IN, POLL_HUP}));
  EXPECT_EQ(sampler.event_of_fd(fd), 0);
  EXPECT_EQ(sampler.event_of_fd(-5), -1);

  ASSERT_EQ(sampler.rearm(fd, 10, 2), 0);
  touch_fresh_pages(100);  // overflows at 10 and 20; then it stops again
  take_signals();
  EXPECT_EQ(codes, (std::vector<int>{POLL_IN, POLL_HUP}));
  sampler.stop();
  pthread_sigmask(SIG_UNBLOCK, &set, nullptr);

  Kept kept;
  sampler.drain(kept);
  EXPECT_EQ(kept.per_event[0], 5u);
}

// perfmon2's randomized periods, exactly: armed for one overflow at a time, each next period is set
// before the event counts again, so the i-th notification comes after exactly the i-th period of the
// seed's series.
TEST(Sampling, RandomPeriodsFollowTheSeedsSeriesExactly) {
  const int signo = SIGRTMIN + 4;
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, signo);
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
  SamplingOptions options = every_event();
  options.period = 20;
  options.random_bits = 3;
  options.random_seed = 42;
  options.overflow_signal = signo;
  options.stop_after = 1;
  Sampler sampler(catalog().parse("page-faults"), Target::self(), options);
  RandomPeriod series(20, 3, 42);

  const std::size_t page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  constexpr std::size_t kPages = 2000;
  char* memory =
      static_cast<char*>(mmap(nullptr, kPages * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
  ASSERT_NE(memory, MAP_FAILED);
  madvise(memory, kPages * page, MADV_NOHUGEPAGE);
  std::vector<std::uint64_t> expected = {20}, seen;
  expected.reserve(64);  // no allocation (and no page fault of the heap's) while counting
  seen.reserve(64);
  std::uint64_t faults_since_armed = 0;
  sampler.start();
  for (std::size_t i = 0; i < kPages && seen.size() < 40; ++i) {
    touch(memory + i * page);
    ++faults_since_armed;
    siginfo_t info;
    timespec none{};
    if (sigtimedwait(&set, &info, &none) != signo) continue;
    seen.push_back(faults_since_armed);
    faults_since_armed = 0;
    ASSERT_EQ(sampler.rearm(info.si_fd), 0);
    expected.push_back(series.next());
    EXPECT_EQ(sampler.last_period(info.si_fd), expected.back());
  }
  sampler.stop();
  pthread_sigmask(SIG_UNBLOCK, &set, nullptr);
  munmap(memory, kPages * page);
  expected.pop_back();  // set after the last notification, not yet run through
  EXPECT_EQ(seen, expected);
  EXPECT_GT(std::set<std::uint64_t>(seen.begin(), seen.end()).size(), 3u);
  for (std::uint64_t period : seen) {
    EXPECT_GE(period, 20u);
    EXPECT_LE(period, 27u);
  }
}

// Set any other way, a new period restarts the event's count (a tracepoint then samples its very
// next occurrence): 3M calls at 1000 + 5 random bits took 84,000 samples, not 2,900. Refused.
TEST(Sampling, RandomPeriodsThatCannotBeExactAreRefused) {
  SamplingOptions options = every_event();
  options.period = 1000;
  options.random_bits = 5;
  try {
    Sampler sampler(catalog().parse("syscalls:sys_enter_getppid"), Target::self(), options);
    FAIL() << "random periods set while the event counts were accepted";
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what())
                  .find("random periods are exact only when each is set before the event counts "
                        "again: arm one overflow at a time (stop_after = 1)"),
              std::string::npos)
        << error.what();
  }
}

TEST(Sampling, OptionsThatCannotSampleAreRefused) {
  SamplingOptions none;
  try {
    Sampler sampler(catalog().parse("task-clock"), Target::self(), none);
    FAIL() << "a sampler without a period opened";
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find("'task-clock' has no sampling period"), std::string::npos) << error.what();
  }
  SamplingOptions odd = every_event();
  odd.ring_pages = 3;
  EXPECT_THROW(Sampler(catalog().parse("task-clock"), Target::self(), odd), Error);
  SamplingOptions inherited_read = every_event();
  inherited_read.inherit = true;
  inherited_read.sample_type |= PERF_SAMPLE_READ;
  EXPECT_THROW(Sampler(catalog().parse("task-clock"), Target::self(), inherited_read), Error);
  SamplingOptions inherited_signal = every_event();
  inherited_signal.inherit = true;
  inherited_signal.stop_after = 1;
  EXPECT_THROW(Sampler(catalog().parse("task-clock"), Target::self(), inherited_signal), Error);
  SamplingOptions odd_stack = every_event();
  odd_stack.user_stack_bytes = 12;  // not a multiple of 8
  EXPECT_THROW(Sampler(catalog().parse("task-clock"), Target::self(), odd_stack), Error);
  odd_stack.user_stack_bytes = 65536;  // beyond what the kernel copies
  EXPECT_THROW(Sampler(catalog().parse("task-clock"), Target::self(), odd_stack), Error);
  // The event's own period is enough.
  EXPECT_NO_THROW(Sampler(catalog().parse("software/config=1,period=1000/"), Target::self(), none));
}

}  // namespace
}  // namespace perfmon
