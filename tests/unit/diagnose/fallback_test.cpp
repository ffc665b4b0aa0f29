// SPDX-License-Identifier: Apache-2.0
// The one decision after the kernel refuses an event, case by case.
#include "diagnose/fallback.hpp"

#include <gtest/gtest.h>

#include <cerrno>

namespace perfmon::diagnose {
namespace {

perf_event_attr hardware(unsigned precise = 0) {
  perf_event_attr attr{};
  attr.size = sizeof attr;
  attr.type = PERF_TYPE_HARDWARE;
  attr.precise_ip = precise;
  return attr;
}

constexpr Privilege kUnprivileged{2, false};
constexpr Privilege kRoot{2, true};
constexpr Privilege kParanoidOne{1, false};

TEST(Fallback, MaxPrecisionStepsDownOneLevelAtATime) {
  for (int err : {EINVAL, EOPNOTSUPP}) {
    NextAttempt next = next_attempt({hardware(3), err, true, false}, kRoot);
    EXPECT_EQ(next.fallback, Fallback::LowerPrecision);
    EXPECT_EQ(next.attr.precise_ip, 2u);
  }
  // At precision 0 there is nothing left to lower; without ':P' a refused 'ppp' stands.
  EXPECT_EQ(next_attempt({hardware(0), EINVAL, true, false}, kRoot).fallback, Fallback::None);
  EXPECT_EQ(next_attempt({hardware(3), EINVAL, false, false}, kRoot).fallback, Fallback::None);
  EXPECT_EQ(next_attempt({hardware(3), EACCES, true, false}, kRoot).fallback, Fallback::None);
}

TEST(Fallback, ParanoidKernelCountingFallsBackToUserSpace) {
  for (int err : {EACCES, EPERM}) {
    NextAttempt next = next_attempt({hardware(), err}, kUnprivileged);
    EXPECT_EQ(next.fallback, Fallback::UserSpaceOnly);
    EXPECT_TRUE(next.attr.exclude_kernel);
    EXPECT_TRUE(next.attr.exclude_hv);
    EXPECT_FALSE(next.attr.exclude_user);
  }
}

TEST(Fallback, UserSpaceOnlyKeepsTheEventsMeaningOrIsNotTried) {
  perf_event_attr kernel_only = hardware();
  kernel_only.exclude_user = 1;  // ':k': narrowing it to user space would count nothing
  EXPECT_EQ(next_attempt({kernel_only, EACCES}, kUnprivileged).fallback, Fallback::None);
  perf_event_attr user_only = hardware();
  user_only.exclude_kernel = 1;  // already user space: the refusal has another cause
  EXPECT_EQ(next_attempt({user_only, EACCES}, kUnprivileged).fallback, Fallback::None);
  // Privileged, or paranoid below 2: kernel counting is allowed, so the refusal is not about it.
  EXPECT_EQ(next_attempt({hardware(), EACCES}, kRoot).fallback, Fallback::None);
  EXPECT_EQ(next_attempt({hardware(), EACCES}, kParanoidOne).fallback, Fallback::None);
}

TEST(Fallback, WeakGroupMembersSplitTheGroup) {
  for (int err : {EINVAL, EBADF})
    EXPECT_EQ(next_attempt({hardware(), err, false, true}, kRoot).fallback, Fallback::SplitGroup);
  // A leader, or a member refused for a reason a smaller group does not change, does not split.
  EXPECT_EQ(next_attempt({hardware(), EINVAL, false, false}, kRoot).fallback, Fallback::None);
  EXPECT_EQ(next_attempt({hardware(), ENOENT, false, true}, kRoot).fallback, Fallback::None);
  EXPECT_EQ(next_attempt({hardware(), ESRCH, false, true}, kRoot).fallback, Fallback::None);
}

TEST(Fallback, PrecisionIsLoweredBeforeAWeakGroupSplits) {
  NextAttempt next = next_attempt({hardware(2), EINVAL, true, true}, kRoot);
  EXPECT_EQ(next.fallback, Fallback::LowerPrecision);
  EXPECT_EQ(next.attr.precise_ip, 1u);
}

}  // namespace
}  // namespace perfmon::diagnose
