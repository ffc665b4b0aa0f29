// The sampler against the running kernel, with sample counts known exactly: a tracepoint on a
// system call sampled at period 1 gives one sample per call, attributed to the right event and
// thread; what a full ring cannot take is counted as lost, never silently missing.
#include <gtest/gtest.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <set>
#include <string>
#include <vector>

#include "perfmon/catalog.hpp"
#include "perfmon/error.hpp"
#include "perfmon/sampler.hpp"
#include "perfmon/workload.hpp"

namespace perfmon {
namespace {

const EventCatalog& catalog() {
  static const EventCatalog instance;
  return instance;
}

void call_getppid(long n) {
  for (long i = 0; i < n; ++i) syscall(SYS_getppid);
}

// Keeps what the tests check of each sample.
struct Kept : SampleHandler {
  std::vector<std::size_t> per_event = std::vector<std::size_t>(4);
  std::set<std::uint32_t> pids, tids;
  std::set<std::uint64_t> periods;
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
  EXPECT_EQ(kept.periods, std::set<std::uint64_t>{1});
  EXPECT_EQ(sampler.stats().samples, 1000u);
  EXPECT_EQ(sampler.stats().lost, 0u);
  EXPECT_EQ(sampler.stats().undecodable, 0u);
  // Drained: nothing is handed out twice.
  EXPECT_EQ(sampler.drain(kept), 0u);
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
  EXPECT_EQ(sampler.stats().lost, 0u);
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
  EXPECT_GT(sampler.stats().lost, 0u) << "one page should not hold 20,000 samples";
  EXPECT_EQ(kept.per_event[0] + sampler.stats().lost, 20001u);
  EXPECT_EQ(sampler.stats().records, kept.other_records);
  EXPECT_EQ(sampler.stats().corrupt_rings, 0u);
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
  // The event's own period is enough.
  EXPECT_NO_THROW(Sampler(catalog().parse("software/config=1,period=1000/"), Target::self(), none));
}

}  // namespace
}  // namespace perfmon
