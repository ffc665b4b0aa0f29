// SPDX-License-Identifier: Apache-2.0
#include "kernel/cpu_list.hpp"

#include <gtest/gtest.h>

namespace perfmon::kernel {
namespace {

std::vector<int> parsed(std::string_view text, int limit = 64) {
  std::vector<int> cpus;
  EXPECT_EQ(parse_cpu_list(text, limit, cpus), CpuListError::None) << text;
  return cpus;
}

TEST(CpuList, ParsesRangesAndSingles) {
  EXPECT_EQ(parsed("0-3,5,7-8\n"), (std::vector<int>{0, 1, 2, 3, 5, 7, 8}));
  EXPECT_EQ(parsed("3,1,1"), (std::vector<int>{1, 3}));
}

TEST(CpuList, FormatsCompactly) {
  EXPECT_EQ(format_cpu_list({0, 1, 2, 3, 5, 7, 8}), "0-3,5,7-8");
  EXPECT_EQ(format_cpu_list({}), "");
}

TEST(CpuList, SaysWhatIsWrong) {
  std::vector<int> cpus;
  for (const char* bad : {"", "a", "1,,2", "-1", "1-", "1-2-3", "+1", " 1"})
    EXPECT_EQ(parse_cpu_list(bad, 64, cpus), CpuListError::Malformed) << bad;
  EXPECT_EQ(parse_cpu_list("3-1", 64, cpus), CpuListError::Backwards);
  EXPECT_EQ(parse_cpu_list("64", 64, cpus), CpuListError::TooLarge);
  // Bounded before any range is expanded: no text makes a list longer than the limit.
  EXPECT_EQ(parse_cpu_list("0-2000000000", 64, cpus), CpuListError::TooLarge);
  EXPECT_EQ(parse_cpu_list("2147483647", 64, cpus), CpuListError::TooLarge);
  EXPECT_EQ(parse_cpu_list("99999999999999999999", 64, cpus), CpuListError::TooLarge);
}

TEST(CpuList, TheMachinesCpusAreKnown) {
  EXPECT_FALSE(online_cpus().empty());
  EXPECT_GT(possible_cpu_count(), online_cpus().back());
}

}  // namespace
}  // namespace perfmon::kernel
