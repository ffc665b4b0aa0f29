// SPDX-License-Identifier: Apache-2.0
#include "kernel/read_format.hpp"

#include <gtest/gtest.h>

namespace perfmon::kernel {
namespace {

TEST(GroupReadLayout, EveryFieldOfTheFullFormat) {
  GroupReadLayout layout(PERF_FORMAT_GROUP | PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING |
                         PERF_FORMAT_ID | PERF_FORMAT_LOST);
  //                          nr ena run  v   id  lost  v   id  lost
  const std::uint64_t words[] = {2, 100, 50, 7, 11, 0, 9, 12, 3};
  EXPECT_EQ(layout.words(2), 9u);
  EXPECT_EQ(layout.members(words, 9), 2);
  EXPECT_EQ(layout.time_enabled(words), 100u);
  EXPECT_EQ(layout.time_running(words), 50u);
  EXPECT_EQ(layout.value(words, 1), 9u);
  EXPECT_EQ(layout.id(words, 1), 12u);
  EXPECT_EQ(layout.lost(words, 1), 3u);
}

TEST(GroupReadLayout, MinimalFormat) {
  GroupReadLayout layout(PERF_FORMAT_GROUP);
  const std::uint64_t words[] = {3, 10, 20, 30};
  EXPECT_EQ(layout.members(words, 4), 3);
  EXPECT_EQ(layout.value(words, 2), 30u);
  EXPECT_EQ(layout.time_enabled(words), 0u);
  EXPECT_EQ(layout.id(words, 0), 0u);
  EXPECT_EQ(layout.lost(words, 0), 0u);
}

TEST(GroupReadLayout, RunningWithoutEnabled) {
  GroupReadLayout layout(PERF_FORMAT_GROUP | PERF_FORMAT_TOTAL_TIME_RUNNING | PERF_FORMAT_ID);
  const std::uint64_t words[] = {1, 42, 5, 99};
  EXPECT_EQ(layout.time_running(words), 42u);
  EXPECT_EQ(layout.value(words, 0), 5u);
  EXPECT_EQ(layout.id(words, 0), 99u);
}

TEST(GroupReadLayout, TruncatedReadsAreRefused) {
  GroupReadLayout layout(PERF_FORMAT_GROUP | PERF_FORMAT_ID);
  const std::uint64_t words[] = {4, 1, 2, 3, 4};
  EXPECT_EQ(layout.members(words, 5), -1);  // says four members, holds two
  EXPECT_EQ(layout.members(words, 0), -1);
  // A count so large that members * stride wraps round to a small number.
  const std::uint64_t wrapping[] = {1ULL << 63, 1, 2};
  EXPECT_EQ(layout.members(wrapping, 3), -1);
}

}  // namespace
}  // namespace perfmon::kernel
