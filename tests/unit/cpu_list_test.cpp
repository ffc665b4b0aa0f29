#include "kernel/cpu_list.hpp"

#include <gtest/gtest.h>

#include "perfmon/error.hpp"

namespace perfmon::kernel {
namespace {

TEST(CpuList, ParsesRangesAndSingles) {
  EXPECT_EQ(parse_cpu_list("0-3,5,7-8\n"), (std::vector<int>{0, 1, 2, 3, 5, 7, 8}));
  EXPECT_EQ(parse_cpu_list("3,1,1"), (std::vector<int>{1, 3}));
}

TEST(CpuList, FormatsCompactly) {
  EXPECT_EQ(format_cpu_list({0, 1, 2, 3, 5, 7, 8}), "0-3,5,7-8");
  EXPECT_EQ(format_cpu_list({}), "");
}

TEST(CpuList, RejectsMalformedLists) {
  for (const char* bad : {"", "a", "3-1", "1,,2", "-1", "1-"}) EXPECT_THROW(parse_cpu_list(bad), Error) << bad;
}

TEST(CpuList, OnlineCpusAreKnown) {
  EXPECT_FALSE(online_cpus().empty());
}

}  // namespace
}  // namespace perfmon::kernel
