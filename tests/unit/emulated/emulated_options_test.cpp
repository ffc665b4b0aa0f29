// SPDX-License-Identifier: Apache-2.0
// EmulatorOptions::enabled_for: what the emulated CPU runs for the events asked for, and nothing it
// would run for an event it does not count.
#include <gtest/gtest.h>

#include "perfmon/catalog.hpp"
#include "perfmon/emulated.hpp"

namespace perfmon {
namespace {

EmulatorOptions enabled_for(const char* events) {
  EventCatalog catalog;
  return EmulatorOptions{}.enabled_for(catalog.parse(events));
}

TEST(EmulatorOptions, InstructionsNeedNothingMore) {
  const EmulatorOptions options = enabled_for("instructions,instructions:u");
  EXPECT_FALSE(options.branches || options.memory_accesses || options.branch_prediction || options.caches);
}

TEST(EmulatorOptions, EachEventTurnsOnWhatCountsIt) {
  EXPECT_TRUE(enabled_for("branches").branches);
  EXPECT_TRUE(enabled_for("branch-misses").branch_prediction);
  const EmulatorOptions loads = enabled_for("L1-dcache-loads,L1-dcache-stores");
  EXPECT_TRUE(loads.memory_accesses);
  EXPECT_FALSE(loads.caches);
  for (const char* event : {"L1-dcache-load-misses", "L1-icache-load-misses", "LLC-loads", "LLC-store-misses",
                            "cache-references", "cache-misses"})
    EXPECT_TRUE(enabled_for(event).caches) << event;
}

TEST(EmulatorOptions, EventsTheEmulatedCpuDoesNotCountTurnNothingOn) {
  // The cache model counts no prefetches and no TLB: these stay unsupported, at no cost.
  const EmulatorOptions options = enabled_for("LLC-prefetches,dTLB-load-misses,L1-icache-loads,cycles");
  EXPECT_FALSE(options.branches || options.memory_accesses || options.branch_prediction || options.caches);
}

}  // namespace
}  // namespace perfmon
