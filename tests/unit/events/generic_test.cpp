// SPDX-License-Identifier: Apache-2.0
#include "events/sources/generic.hpp"

#include <gtest/gtest.h>

namespace perfmon::events {
namespace {

constexpr std::uint64_t cache(int id, int op, int result) {
  return static_cast<std::uint64_t>(id) | (static_cast<std::uint64_t>(op) << 8) |
         (static_cast<std::uint64_t>(result) << 16);
}

TEST(GenericEvents, HardwareNamesAndAliases) {
  auto cycles = find_generic_event("cycles");
  ASSERT_TRUE(cycles);
  EXPECT_EQ(cycles->type, static_cast<std::uint32_t>(PERF_TYPE_HARDWARE));
  EXPECT_EQ(cycles->config, static_cast<std::uint64_t>(PERF_COUNT_HW_CPU_CYCLES));
  EXPECT_EQ(find_generic_event("cpu-cycles")->config, cycles->config);
  EXPECT_EQ(find_generic_event("branches")->config, static_cast<std::uint64_t>(PERF_COUNT_HW_BRANCH_INSTRUCTIONS));
  EXPECT_EQ(find_generic_event("idle-cycles-backend")->config,
            static_cast<std::uint64_t>(PERF_COUNT_HW_STALLED_CYCLES_BACKEND));
  EXPECT_EQ(find_generic_event("ref-cycles")->config, static_cast<std::uint64_t>(PERF_COUNT_HW_REF_CPU_CYCLES));
}

TEST(GenericEvents, SoftwareNamesAndAliases) {
  EXPECT_EQ(find_generic_event("cs")->config, static_cast<std::uint64_t>(PERF_COUNT_SW_CONTEXT_SWITCHES));
  EXPECT_EQ(find_generic_event("faults")->config, static_cast<std::uint64_t>(PERF_COUNT_SW_PAGE_FAULTS));
  EXPECT_EQ(find_generic_event("migrations")->config, static_cast<std::uint64_t>(PERF_COUNT_SW_CPU_MIGRATIONS));
  EXPECT_EQ(find_generic_event("task-clock")->type, static_cast<std::uint32_t>(PERF_TYPE_SOFTWARE));
  EXPECT_EQ(find_generic_event("dummy")->config, static_cast<std::uint64_t>(PERF_COUNT_SW_DUMMY));
  EXPECT_FALSE(find_generic_event("no-such-event"));
}

TEST(GenericEvents, HardwareCacheCombinations) {
  EXPECT_EQ(find_generic_event("L1-dcache-load-misses")->config, cache(0, 0, 1));
  EXPECT_EQ(find_generic_event("L1-dcache-loads")->config, cache(0, 0, 0));
  EXPECT_EQ(find_generic_event("L1-dcache-stores")->config, cache(0, 1, 0));
  EXPECT_EQ(find_generic_event("LLC-prefetch-misses")->config, cache(2, 2, 1));
  EXPECT_EQ(find_generic_event("dTLB-load-misses")->config, cache(3, 0, 1));
  EXPECT_EQ(find_generic_event("iTLB-loads")->config, cache(4, 0, 0));
  EXPECT_EQ(find_generic_event("branch-loads")->config, cache(5, 0, 0));
  EXPECT_EQ(find_generic_event("node-stores")->config, cache(6, 1, 0));
  // perf's other spellings and its defaults (op load, result access).
  EXPECT_EQ(find_generic_event("l1d-misses")->config, cache(0, 0, 1));
  EXPECT_EQ(find_generic_event("L2-read-miss")->config, cache(2, 0, 1));
  EXPECT_EQ(find_generic_event("LLC")->config, cache(2, 0, 0));
  EXPECT_EQ(find_generic_event("L1-dcache-speculative-read-ops")->config, cache(0, 2, 0));
  // Operations a cache does not have are refused, as perf refuses them.
  EXPECT_FALSE(find_generic_event("L1-icache-stores"));
  EXPECT_FALSE(find_generic_event("iTLB-prefetches"));
  EXPECT_FALSE(find_generic_event("L1-dcache-load-misses-misses"));
  // ... and the refusal says which operations the cache has.
  EXPECT_EQ(unsupported_cache_operation("L1-icache-stores"),
            "L1-icache has no store events; its events count loads and prefetches.");
  EXPECT_EQ(unsupported_cache_operation("itlb-prefetch-misses"),
            "iTLB has no prefetch events; its events count loads.");
  EXPECT_FALSE(unsupported_cache_operation("L1-dcache-stores"));
  EXPECT_FALSE(unsupported_cache_operation("L1-dcache-load-misses-misses"));
}

TEST(GenericEvents, EveryListedCacheNameResolves) {
  auto names = hardware_cache_event_names();
  EXPECT_EQ(names.size(), 2u * (3 + 2 + 3 + 3 + 1 + 1 + 3));
  for (const std::string& name : names) EXPECT_TRUE(find_generic_event(name)) << name;
}

}  // namespace
}  // namespace perfmon::events
