// SPDX-License-Identifier: Apache-2.0
// perfmon2's randomized periods: the minimal standard generator, and periods within their range.
#include "perfmon/random_period.hpp"

#include <gtest/gtest.h>

#include <set>

#include "perfmon/error.hpp"

namespace perfmon {
namespace {

TEST(RandomPeriod, TheGeneratorIsTheMinimalStandard) {
  // Park and Miller's published values from seed 1, and their check: the 10,000th is 1043618065.
  const std::uint32_t first[] = {16807, 282475249, 1622650073, 984943658, 1144108930};
  std::uint32_t state = 1;
  for (std::uint32_t expected : first) EXPECT_EQ(state = RandomPeriod::minimal_standard(state), expected);
  state = 1;
  for (int i = 0; i < 10000; ++i) state = RandomPeriod::minimal_standard(state);
  EXPECT_EQ(state, 1043618065u);
}

TEST(RandomPeriod, PeriodsStayInTheirRangeVaryAndRepeatFromTheSeed) {
  RandomPeriod periods(0x100000, 8, 12345), again(0x100000, 8, 12345), other(0x100000, 8, 54321);
  std::set<std::uint64_t> seen;
  bool same_as_other = true;
  for (int i = 0; i < 1000; ++i) {
    const std::uint64_t period = periods.next();
    EXPECT_GE(period, 0x100000u);
    EXPECT_LE(period, 0x1000ffu);
    EXPECT_EQ(period, again.next());
    same_as_other &= period == other.next();
    seen.insert(period);
  }
  EXPECT_GT(seen.size(), 200u);  // of 256 possible
  EXPECT_FALSE(same_as_other);
  RandomPeriod fixed(500, 0, 7);
  EXPECT_EQ(fixed.next(), 500u);
}

TEST(RandomPeriod, ImpossibleSettingsAreRefused) {
  EXPECT_THROW(RandomPeriod(100, 32, 1), Error);
  EXPECT_THROW(RandomPeriod(100, 4, 0), Error);
  EXPECT_THROW(RandomPeriod(100, 4, 2147483647), Error);
  EXPECT_THROW(RandomPeriod(0, 4, 1), Error);
  EXPECT_THROW(RandomPeriod(UINT64_MAX / 2, 4, 1), Error);
}

}  // namespace
}  // namespace perfmon
