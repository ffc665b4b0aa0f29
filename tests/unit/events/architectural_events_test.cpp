// SPDX-License-Identifier: Apache-2.0
#include "events/sources/architectural_events.hpp"

#include <gtest/gtest.h>

namespace perfmon::events {
namespace {

TEST(ArchitecturalEvents, TableMatchesTheTutorialAndTheSdm) {
  const auto& table = intel_architectural_events();
  EXPECT_EQ(table.size(), 17u);
  const ArchitecturalEvent* inst = find_architectural_event("inst_retired.any");
  ASSERT_NE(inst, nullptr);
  EXPECT_TRUE(inst->fixed);
  EXPECT_EQ(*inst->fixed_counter, 0u);
  EXPECT_EQ(*inst->fixed_msr, 0x309u);
  EXPECT_EQ(*find_architectural_event("CPU_CLK_UNHALTED.CORE")->fixed_msr, 0x30au);
  EXPECT_EQ(*find_architectural_event("CPU_CLK_UNHALTED.REF")->fixed_msr, 0x30bu);
  const ArchitecturalEvent* misses = find_architectural_event("LONGEST_LAT_CACHE.MISS");
  ASSERT_NE(misses, nullptr);
  EXPECT_EQ(misses->event, 0x2e);
  EXPECT_EQ(misses->umask, 0x41);
  EXPECT_EQ(*misses->ebx_bit, 4u);
  EXPECT_EQ(find_architectural_event("NO_SUCH.EVENT"), nullptr);
}

TEST(ArchitecturalEvents, FoundByTheirCode) {
  const ArchitecturalEvent* instructions = find_architectural_event(0xc0, 0x00);
  ASSERT_NE(instructions, nullptr);
  EXPECT_EQ(instructions->name, "INST_RETIRED.ANY_P");
  EXPECT_EQ(find_architectural_event(0x00, 0x01), nullptr);  // fixed counters have no event select
}

}  // namespace
}  // namespace perfmon::events
