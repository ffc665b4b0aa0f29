// SPDX-License-Identifier: Apache-2.0
// Regions marked in a program's code, counted per thread: exact tracepoint counts, the statuses of
// misuse, groups taking turns, results per thread and group.
#include "perfmon/marked_regions.hpp"

#include <gtest/gtest.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <thread>
#include <vector>

namespace perfmon {
namespace {

using Status = MarkedRegions::Status;
constexpr const char* kGetppid = "syscalls:sys_enter_getppid";

void calls(int n) {
  for (int i = 0; i < n; ++i) syscall(SYS_getppid);
}

TEST(MarkedRegions, EachThreadCountsItsOwnRegionsExactly) {
  MarkedRegions regions({kGetppid});
  std::vector<std::thread> threads;
  for (int t = 1; t <= 4; ++t)
    threads.emplace_back([&regions, t] {
      EXPECT_EQ(regions.start("work"), Status::Done);
      calls(10 * t);
      EXPECT_EQ(regions.start("inner"), Status::Done);  // overlapping names: their own sums
      calls(1);
      EXPECT_EQ(regions.stop("work"), Status::Done);
      calls(2);
      EXPECT_EQ(regions.stop("inner"), Status::Done);
    });
  for (std::thread& thread : threads) thread.join();
  std::vector<std::uint64_t> work, inner;
  for (const MarkedRegionResult& result : regions.results()) {
    ASSERT_EQ(result.values.size(), 1u);
    EXPECT_EQ(result.count, 1u);
    EXPECT_GT(result.seconds, 0);
    (result.tag == "work" ? work : inner).push_back(result.values[0].raw);
  }
  std::sort(work.begin(), work.end());
  EXPECT_EQ(work, (std::vector<std::uint64_t>{11, 21, 31, 41}));
  EXPECT_EQ(inner, std::vector<std::uint64_t>(4, 3));
}

TEST(MarkedRegions, AThreadsRegionIsAReadingOfItsGroupsEvents) {
  MarkedRegionResult region;
  region.thread = 2;
  region.values = {{7, 100, 100, 0}, {9, 100, 50, 0}, {1, 1, 1, 0}};
  Event known;
  known.name = "task-clock";
  known.attr.type = PERF_TYPE_SOFTWARE;
  const Reading reading = marked_region_reading(region, {kGetppid, "task-clock"}, {EventGroup{{known}}});
  ASSERT_EQ(reading.events.size(), 3u);
  EXPECT_EQ(reading.events[0].event.name, kGetppid);
  EXPECT_EQ(reading.events[1].event.attr.type, static_cast<std::uint32_t>(PERF_TYPE_SOFTWARE));  // the known one
  EXPECT_EQ(reading.events[2].event.name, "?");  // past the group's names
  for (const ReadingEvent& event : reading.events) {
    EXPECT_EQ(event.label, "thread2");
    EXPECT_EQ(event.label_kind, "thread");
  }
  EXPECT_EQ(reading.events[1].value.running, 50u);
}

TEST(MarkedRegions, MisuseIsToldAndTheCountsStayRight) {
  MarkedRegions regions({kGetppid});
  EXPECT_EQ(regions.stop("never"), Status::NotStarted);
  EXPECT_EQ(regions.reset("never"), Status::NotStarted);
  EXPECT_EQ(regions.start("r"), Status::Done);
  calls(5);
  EXPECT_EQ(regions.start("r"), Status::AlreadyStarted);  // its start taken again
  EXPECT_EQ(regions.reset("r"), Status::Running);
  calls(3);
  EXPECT_EQ(regions.stop("r"), Status::Done);
  EXPECT_EQ(regions.stop("r"), Status::NotStarted);
  std::vector<double> values;
  double seconds = 0;
  std::uint64_t count = 0;
  ASSERT_TRUE(regions.get("r", values, seconds, count));
  EXPECT_EQ(values, std::vector<double>{3});
  EXPECT_EQ(count, 1u);
  EXPECT_EQ(regions.reset("r"), Status::Done);
  EXPECT_FALSE(regions.get("r", values, seconds, count));
  EXPECT_TRUE(regions.errors().empty());
}

TEST(MarkedRegions, GroupsTakeTurnsAndKeepTheirOwnSums) {
  MarkedRegions regions({kGetppid, std::string(kGetppid) + ",task-clock"});
  ASSERT_EQ(regions.group_count(), 2u);
  EXPECT_EQ(regions.event_names(1), (std::vector<std::string>{kGetppid, "task-clock"}));
  regions.start("r");
  calls(7);
  regions.stop("r");
  regions.next_group();
  EXPECT_EQ(regions.active_group(), 1u);
  regions.start("r");
  calls(9);
  regions.stop("r");
  const std::vector<MarkedRegionResult> results = regions.results();
  ASSERT_EQ(results.size(), 2u);
  EXPECT_EQ(results[0].group, 0u);
  EXPECT_EQ(results[0].values[0].raw, 7u);
  EXPECT_EQ(results[1].group, 1u);
  ASSERT_EQ(results[1].values.size(), 2u);
  EXPECT_EQ(results[1].values[0].raw, 9u);
  regions.next_group();
  EXPECT_EQ(regions.active_group(), 0u);  // round robin
}

// Threads come and go (OpenMP pools, task runtimes): a thread's counters close when it exits, its
// sums stay.
TEST(MarkedRegions, ThreadsThatEndGiveBackTheirCounters) {
  auto open_descriptors = [] {
    std::size_t count = 0;
    for ([[maybe_unused]] const auto& entry : std::filesystem::directory_iterator("/proc/self/fd")) ++count;
    return count;
  };
  MarkedRegions regions({std::string(kGetppid) + ",task-clock"});
  const std::size_t before = open_descriptors();
  for (int t = 0; t < 60; ++t)
    std::thread([&regions] {
      regions.start("short");
      calls(2);
      regions.stop("short");
    }).join();
  EXPECT_LE(open_descriptors(), before + 4);  // not 120
  const std::vector<MarkedRegionResult> results = regions.results();
  ASSERT_EQ(results.size(), 60u);
  for (const MarkedRegionResult& result : results) EXPECT_EQ(result.values.at(0).raw, 2u);
  regions.next_group();  // the threads that ended are not opened again
  EXPECT_TRUE(regions.errors().empty()) << regions.errors().front();
}

}  // namespace
}  // namespace perfmon
