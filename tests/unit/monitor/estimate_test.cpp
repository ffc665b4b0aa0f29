// SPDX-License-Identifier: Apache-2.0
// The standard error of an extrapolated count, worked by hand.
#include "perfmon/estimate.hpp"

#include <gtest/gtest.h>

#include <cmath>

namespace perfmon {
namespace {

TEST(SliceStatistics, TwoSlicesOfHalfTheTime) {
  // Rates 10 and 20 per ns over 1 ns each, 4 ns enabled: m = 15, total 60; sum((c - m d)^2) = 50,
  // Var(m) = 50 / 2^2 * 2/1 = 25, half the time unobserved: stderr = 4 * sqrt(25 * 0.5).
  SliceStatistics slices;
  slices.add(10, 1);
  slices.add(20, 1);
  const CountEstimate estimate = slices.estimate(4);
  EXPECT_DOUBLE_EQ(estimate.value, 60);
  ASSERT_TRUE(estimate.standard_error);
  EXPECT_NEAR(*estimate.standard_error, 4 * std::sqrt(12.5), 1e-9);
  EXPECT_EQ(estimate.slices, 2u);
  EXPECT_NEAR(*estimate.relative_error_percent(), 4 * std::sqrt(12.5) / 60 * 100, 1e-9);
}

TEST(SliceStatistics, ASteadyRateHasNoError) {
  SliceStatistics slices;
  for (int i = 1; i <= 5; ++i) slices.add(3.0 * i, i);
  const CountEstimate estimate = slices.estimate(30);
  EXPECT_DOUBLE_EQ(estimate.value, 90);
  EXPECT_NEAR(*estimate.standard_error, 0, 1e-9);
}

TEST(SliceStatistics, CountedAllTheTimeIsExact) {
  SliceStatistics slices;
  slices.add(7, 5);
  const CountEstimate estimate = slices.estimate(5);
  EXPECT_DOUBLE_EQ(estimate.value, 7);
  EXPECT_EQ(estimate.standard_error, 0.0);
}

TEST(SliceStatistics, OneSliceOfPartOfTheTimeHasNoKnownError) {
  SliceStatistics slices;
  slices.add(7, 5);
  EXPECT_FALSE(slices.estimate(10).standard_error);
  EXPECT_DOUBLE_EQ(slices.estimate(10).value, 14);
  EXPECT_FALSE(SliceStatistics().estimate(10).standard_error);
  slices.add(1, 0);  // a slice the event did not run in says nothing
  EXPECT_EQ(slices.slices(), 1u);
}

TEST(SliceStatistics, AnEventNeverSeenHasNoErrorAtAll) {
  // Page faults in a set whose slices saw none: 0, exactly as uncertain as nothing varied.
  SliceStatistics slices;
  slices.add(0, 5);
  slices.add(0, 5);
  const CountEstimate estimate = slices.estimate(20);
  EXPECT_EQ(estimate.value, 0);
  EXPECT_EQ(estimate.relative_error_percent(), 0.0);
  EXPECT_FALSE(CountEstimate{}.relative_error_percent());
}

}  // namespace
}  // namespace perfmon
