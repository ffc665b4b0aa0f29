// SPDX-License-Identifier: Apache-2.0
// Marked regions' results written in perfmon's file (what libperfmon-likwid and perfmon's program
// regions leave for perfmon stat --markers and perfmon bench --markers) and read back as written.
#include "perfmon/marker_results.hpp"

#include <gtest/gtest.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <filesystem>
#include <thread>

namespace perfmon {
namespace {

constexpr const char* kGetppid = "syscalls:sys_enter_getppid";

TEST(MarkerResults, WrittenAndReadBackAsTheyWere) {
  MarkedRegions regions({kGetppid, std::string(kGetppid) + ",task-clock"});
  const std::string odd = "a \"quoted\"\nname \xff";  // a quote, a newline, a byte of no UTF-8
  ASSERT_EQ(regions.start("work"), MarkedRegions::Status::Done);
  for (int i = 0; i < 5; ++i) syscall(SYS_getppid);
  ASSERT_EQ(regions.stop("work"), MarkedRegions::Status::Done);
  std::thread([&] {
    ASSERT_EQ(regions.start(odd), MarkedRegions::Status::Done);
    syscall(SYS_getppid);
    ASSERT_EQ(regions.stop(odd), MarkedRegions::Status::Done);
  }).join();
  const std::filesystem::path path = std::filesystem::path(::testing::TempDir()) / "markers.json";
  write_marker_results(path, regions);
  const MarkerResults read = read_marker_results(path);
  std::filesystem::remove(path);
  EXPECT_EQ(read.groups, (std::vector<std::vector<std::string>>{{kGetppid}, {kGetppid, "task-clock"}}));
  ASSERT_EQ(read.regions.size(), 2u);
  EXPECT_EQ(read.regions[0].tag, "work");
  EXPECT_EQ(read.regions[0].thread, 0u);
  EXPECT_EQ(read.regions[0].tid, gettid());
  EXPECT_EQ(read.regions[0].count, 1u);
  ASSERT_EQ(read.regions[0].values.size(), 1u);
  EXPECT_EQ(read.regions[0].values[0].raw, 5u);
  EXPECT_TRUE(read.regions[0].values[0].counted());
  EXPECT_EQ(read.regions[1].tag, "a \"quoted\"\nname \xEF\xBF\xBD");  // the stray byte as U+FFFD
  EXPECT_EQ(read.regions[1].thread, 1u);
  EXPECT_EQ(read.regions[1].values[0].raw, 1u);
  EXPECT_EQ(parse_marker_results(marker_results_json(regions)).regions.size(), 2u);
}

}  // namespace
}  // namespace perfmon
