// SPDX-License-Identifier: Apache-2.0
// The pass planner on made-up counter budgets: no kernel involved.
#include "perfmon/pass_plan.hpp"

#include <gtest/gtest.h>
#include <linux/perf_event.h>

#include "perfmon/error.hpp"

namespace perfmon {
namespace {

Event hardware(const char* name, std::uint64_t config) {
  Event event;
  event.name = name;
  event.pmu = "cpu";
  event.attr.type = PERF_TYPE_HARDWARE;
  event.attr.config = config;
  return event;
}

Event raw(const char* name, std::uint64_t config, std::uint32_t counters = 0) {
  Event event;
  event.name = name;
  event.pmu = "cpu";
  event.attr.type = PERF_TYPE_RAW;
  event.attr.config = config;
  event.counters = counters;
  return event;
}

Event software(const char* name) {
  Event event;
  event.name = name;
  event.pmu = "software";
  event.attr.type = PERF_TYPE_SOFTWARE;
  event.attr.config = PERF_COUNT_SW_TASK_CLOCK;
  return event;
}

EventGroup alone(Event event) {
  return EventGroup{{std::move(event)}};
}

// The emulated-PMU rig's arm64: 6 event counters and the cycle counter.
CounterBudget rig() {
  return {6, {PERF_COUNT_HW_CPU_CYCLES}, "test"};
}

TEST(PassPlan, WhatFitsIsOnePass) {
  std::vector<EventGroup> groups{alone(software("task-clock")), alone(hardware("cycles", PERF_COUNT_HW_CPU_CYCLES)),
                                 alone(hardware("instructions", PERF_COUNT_HW_INSTRUCTIONS))};
  const PassPlan plan = plan_passes(groups, rig());
  ASSERT_EQ(plan.passes.size(), 1u);
  EXPECT_EQ(plan.every_pass, std::vector<std::size_t>{0});
  EXPECT_EQ(plan.passes[0].fixed_used, 1);
  EXPECT_EQ(plan.passes[0].general_used, 1);
  EXPECT_EQ(multiplexing_reason(groups, rig()), "");
}

TEST(PassPlan, EightEventsInOneGroupAreRefusedAndSplitIntoTwoPasses) {
  EventGroup eight;
  for (int i = 0; i < 8; ++i) eight.events.push_back(raw("r", 0x10 + static_cast<unsigned>(i)));
  EXPECT_THROW(plan_passes({eight}, rig()), Error);
  EXPECT_NE(multiplexing_reason({eight}, rig()).find("needs 8 counters at once"), std::string::npos);

  std::vector<EventGroup> singles;
  for (const Event& event : eight.events) singles.push_back(alone(event));
  singles.push_back(alone(hardware("cycles", PERF_COUNT_HW_CPU_CYCLES)));
  singles.push_back(alone(software("task-clock")));
  const PassPlan plan = plan_passes(singles, rig());
  ASSERT_EQ(plan.passes.size(), 2u);
  // 6 on the event counters in pass 1, 2 in pass 2; cycles stays on its fixed counter in both.
  EXPECT_EQ(plan.passes[0].general_used, 6);
  EXPECT_EQ(plan.passes[1].general_used, 2);
  EXPECT_EQ(plan.passes_of(8).size(), 2u);  // cycles in every pass
  EXPECT_EQ(plan.passes_of(9).size(), 2u);  // task-clock too
  EXPECT_EQ(plan.passes_of(0).size(), 1u);
  EXPECT_NE(multiplexing_reason(singles, rig()).find("2 passes"), std::string::npos);
  EXPECT_EQ(plan.groups_of(1, singles).size(), 4u);  // 2 raw, cycles, task-clock
}

TEST(PassPlan, GroupsStayWholeAndLargestGoFirst) {
  EventGroup four, three;
  for (int i = 0; i < 4; ++i) four.events.push_back(raw("a", 0x20 + static_cast<unsigned>(i)));
  for (int i = 0; i < 3; ++i) three.events.push_back(raw("b", 0x30 + static_cast<unsigned>(i)));
  // 3 + 4 + 2 on 6 counters: {4,2} and {3}.
  std::vector<EventGroup> groups{three, four, EventGroup{{raw("c", 1), raw("c", 2)}}};
  const PassPlan plan = plan_passes(groups, rig());
  ASSERT_EQ(plan.passes.size(), 2u);
  ASSERT_EQ(plan.passes[0].groups.size(), 2u);
  EXPECT_EQ(plan.passes[0].groups[0].group, 1u);
  EXPECT_EQ(plan.passes[0].groups[1].group, 2u);
  EXPECT_EQ(plan.passes[1].groups[0].group, 0u);
}

TEST(PassPlan, CounterConstraintsAreRespected) {
  // Two events that only PMC0 can count never share a pass.
  std::vector<EventGroup> groups{alone(raw("only0", 1, 0x1)), alone(raw("only0b", 2, 0x1)), alone(raw("any", 3))};
  const PassPlan plan = plan_passes(groups, {2, {}, "test"});
  ASSERT_EQ(plan.passes.size(), 2u);
  EXPECT_EQ(plan.passes[0].groups[0].events[0].counter, "PMC0");
  EXPECT_NE(describe_plan(plan, groups).find("only0 (PMC0)"), std::string::npos) << describe_plan(plan, groups);
}

TEST(PassPlan, IntelFixedCountersAreUsedFirst) {
  const CounterBudget intel{
      4, {PERF_COUNT_HW_INSTRUCTIONS, PERF_COUNT_HW_CPU_CYCLES, PERF_COUNT_HW_REF_CPU_CYCLES}, "test"};
  EventGroup group{{hardware("cycles", PERF_COUNT_HW_CPU_CYCLES), hardware("instructions", PERF_COUNT_HW_INSTRUCTIONS),
                    raw("a", 1), raw("b", 2), raw("c", 3), raw("d", 4)}};
  const PassPlan plan = plan_passes({group}, intel);
  ASSERT_EQ(plan.passes.size(), 1u);
  EXPECT_EQ(plan.passes[0].groups[0].events[0].counter, "fixed 1");
  EXPECT_EQ(plan.passes[0].groups[0].events[1].counter, "fixed 0");
  EXPECT_EQ(plan.passes[0].general_used, 4);
  // A counter the watchdog holds is no counter of ours.
  CounterBudget watched = intel;
  watched.fixed_events[1] = ~std::uint64_t{0};
  EXPECT_THROW(plan_passes({group}, watched), Error);
}

}  // namespace
}  // namespace perfmon
