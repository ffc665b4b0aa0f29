// SPDX-License-Identifier: Apache-2.0
// The one place where the catalogue's attr is completed for opening.
#include "monitor/attr.hpp"

#include <gtest/gtest.h>

namespace perfmon::monitor {
namespace {

Event software_event() {
  Event event;
  event.name = "task-clock:u";
  event.pmu = "software";
  event.attr.size = sizeof event.attr;
  event.attr.type = PERF_TYPE_SOFTWARE;
  event.attr.config = PERF_COUNT_SW_TASK_CLOCK;
  event.attr.exclude_kernel = 1;
  return event;
}

TEST(CompleteAttr, KeepsWhatTheCatalogueResolved) {
  OpenSettings settings;
  perf_event_attr attr = complete_attr(software_event(), true, settings);
  EXPECT_EQ(attr.type, static_cast<std::uint32_t>(PERF_TYPE_SOFTWARE));
  EXPECT_EQ(attr.config, static_cast<std::uint64_t>(PERF_COUNT_SW_TASK_CLOCK));
  EXPECT_TRUE(attr.exclude_kernel);
  EXPECT_EQ(attr.size, sizeof attr);
}

TEST(CompleteAttr, LeadersStartDisabledAndCarryTheGroupsSettings) {
  OpenSettings settings;
  settings.read_format = PERF_FORMAT_GROUP | PERF_FORMAT_ID;
  settings.inherit = true;
  settings.enable_on_exec = true;
  Event event = software_event();
  event.pinned = true;
  perf_event_attr leader = complete_attr(event, true, settings);
  EXPECT_TRUE(leader.disabled);
  EXPECT_TRUE(leader.enable_on_exec);
  EXPECT_TRUE(leader.pinned);
  EXPECT_TRUE(leader.inherit);
  EXPECT_EQ(leader.read_format, settings.read_format);
  // Members follow their leader: enabled, never pinned or enabled at exec on their own.
  perf_event_attr member = complete_attr(event, false, settings);
  EXPECT_FALSE(member.disabled);
  EXPECT_FALSE(member.enable_on_exec);
  EXPECT_FALSE(member.pinned);
  EXPECT_TRUE(member.inherit);
}

TEST(CompleteAttr, UserAccessOnlyForCorePmuEvents) {
  OpenSettings settings;
  settings.user_access = true;
  Event cycles;
  cycles.pmu = "armv8_pmuv3_0";
  cycles.attr.type = PERF_TYPE_HARDWARE;
  perf_event_attr core = complete_attr(cycles, true, settings);
  perf_event_attr software = complete_attr(software_event(), true, settings);
  EXPECT_EQ(software.config1, 0u);
#if defined(__aarch64__)
  EXPECT_EQ(core.config1 & 2, 2u);  // armv8_pmuv3's "rdpmc" format term
#else
  EXPECT_EQ(core.config1, 0u);  // x86 needs nothing in the attr
#endif
}

TEST(CompleteAttr, SamplingNamesEveryRecordsEventAndTakesThePeriod) {
  OpenSettings counting;
  EXPECT_EQ(complete_attr(software_event(), true, counting).sample_type, 0u);

  OpenSettings settings;
  settings.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID;
  settings.sample_period = 1000;
  perf_event_attr attr = complete_attr(software_event(), true, settings);
  EXPECT_EQ(attr.sample_type, static_cast<std::uint64_t>(PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_IDENTIFIER));
  EXPECT_TRUE(attr.sample_id_all);
  EXPECT_EQ(attr.sample_period, 1000u);
  EXPECT_FALSE(attr.freq);

  settings.sample_frequency = 4000;
  attr = complete_attr(software_event(), true, settings);
  EXPECT_TRUE(attr.freq);
  EXPECT_EQ(attr.sample_freq, 4000u);
  EXPECT_TRUE(attr.sample_type & PERF_SAMPLE_PERIOD);  // the period varies: each sample says it

  // The event's own period= term wins, as in perf.
  Event own = software_event();
  own.attr.sample_period = 7;
  attr = complete_attr(own, true, settings);
  EXPECT_FALSE(attr.freq);
  EXPECT_EQ(attr.sample_period, 7u);
}

}  // namespace
}  // namespace perfmon::monitor
