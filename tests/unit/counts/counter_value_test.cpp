// SPDX-License-Identifier: Apache-2.0
#include "perfmon/counter.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "perfmon/stat.hpp"

namespace perfmon {
namespace {

TEST(CounterValue, UnscaledWhenAlwaysRunning) {
  CounterValue value{1000, 500, 500, 0};
  EXPECT_TRUE(value.counted());
  EXPECT_DOUBLE_EQ(value.scaled(), 1000.0);
  EXPECT_DOUBLE_EQ(value.running_fraction(), 1.0);
}

TEST(CounterValue, ScalesByEnabledOverRunning) {
  CounterValue value{1000, 300, 100, 0};
  EXPECT_DOUBLE_EQ(value.scaled(), 3000.0);
  EXPECT_NEAR(value.running_fraction(), 1.0 / 3.0, 1e-12);
}

TEST(CounterValue, NeverRunningMeansNotCountedNotZero) {
  CounterValue value{0, 300, 0, 0};
  EXPECT_FALSE(value.counted());
  EXPECT_DOUBLE_EQ(value.scaled(), 0.0);
}

TEST(CounterValue, ScalingDoesNotOverflowOnLargeCounts) {
  CounterValue value{std::uint64_t{1} << 62, std::uint64_t{4} << 40, std::uint64_t{1} << 40, 0};
  EXPECT_DOUBLE_EQ(value.scaled(), 4.0 * static_cast<double>(std::uint64_t{1} << 62));
}

TEST(CounterValue, DifferencesAndSums) {
  CounterValue earlier{100, 10, 10, 1}, later{250, 30, 20, 3};
  CounterValue delta = later - earlier;
  EXPECT_EQ(delta.raw, 150u);
  EXPECT_EQ(delta.enabled, 20u);
  EXPECT_EQ(delta.running, 10u);
  EXPECT_EQ(delta.lost, 2u);
  CounterValue total = earlier;
  total += later;
  EXPECT_EQ(total.raw, 350u);
  EXPECT_EQ(total.running, 30u);
}

TEST(RunStats, MeanAndRelativeStddevOfTheMean) {
  RunStats stats = run_stats({10, 12, 14});
  EXPECT_DOUBLE_EQ(stats.mean, 12.0);
  // sample stddev 2, of the mean 2/sqrt(3)
  EXPECT_NEAR(stats.stddev_of_mean, 2.0 / std::sqrt(3.0), 1e-12);
  EXPECT_NEAR(stats.rel_stddev, 100.0 * 2.0 / std::sqrt(3.0) / 12.0, 1e-9);
  EXPECT_DOUBLE_EQ(run_stats({5}).rel_stddev, 0.0);
}

}  // namespace
}  // namespace perfmon
