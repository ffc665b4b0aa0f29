// SPDX-License-Identifier: Apache-2.0
#include "emulated/emulated_events.hpp"

#include <linux/perf_event.h>

#include <atomic>

namespace perfmon::emulation {

namespace {

// perf's generic cache event config: cache | operation << 8 | result << 16.
constexpr std::uint64_t cache_config(perf_hw_cache_id cache, perf_hw_cache_op_id op,
                                     perf_hw_cache_op_result_id result) {
  return cache | op << 8 | result << 16;
}

// What the emulated CPU can count, and the option that must be on for it.
struct KnownEvent {
  std::uint32_t type;
  std::uint64_t config;
  EmulatedSource source;
  bool EmulatorOptions::*needs;
  const char* what;    // what the option runs, for the reason an event is not counted
  const char* option;  // the option's name
};

constexpr KnownEvent cache_event(perf_hw_cache_id cache, perf_hw_cache_op_id op, perf_hw_cache_op_result_id result,
                                 EmulatedSource source) {
  const bool accesses_only = result == PERF_COUNT_HW_CACHE_RESULT_ACCESS && cache == PERF_COUNT_HW_CACHE_L1D;
  return {PERF_TYPE_HW_CACHE,
          cache_config(cache, op, result),
          source,
          accesses_only ? &EmulatorOptions::memory_accesses : &EmulatorOptions::caches,
          accesses_only ? "counting memory accesses" : "its cache model",
          accesses_only ? "memory_accesses" : "caches"};
}

constexpr KnownEvent kEvents[] = {
    {PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, EmulatedSource::Instructions, nullptr, "", ""},
    {PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS, EmulatedSource::Branches, &EmulatorOptions::branches,
     "counting branches", "branches"},
    {PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES, EmulatedSource::BranchMisses, &EmulatorOptions::branch_prediction,
     "its branch predictor model", "branch_prediction"},
    {PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_REFERENCES, EmulatedSource::LlAccesses, &EmulatorOptions::caches,
     "its cache model", "caches"},
    {PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES, EmulatedSource::LlMisses, &EmulatorOptions::caches,
     "its cache model", "caches"},
    cache_event(PERF_COUNT_HW_CACHE_L1D, PERF_COUNT_HW_CACHE_OP_READ, PERF_COUNT_HW_CACHE_RESULT_ACCESS,
                EmulatedSource::Loads),
    cache_event(PERF_COUNT_HW_CACHE_L1D, PERF_COUNT_HW_CACHE_OP_WRITE, PERF_COUNT_HW_CACHE_RESULT_ACCESS,
                EmulatedSource::Stores),
    cache_event(PERF_COUNT_HW_CACHE_L1D, PERF_COUNT_HW_CACHE_OP_READ, PERF_COUNT_HW_CACHE_RESULT_MISS,
                EmulatedSource::L1dLoadMisses),
    cache_event(PERF_COUNT_HW_CACHE_L1D, PERF_COUNT_HW_CACHE_OP_WRITE, PERF_COUNT_HW_CACHE_RESULT_MISS,
                EmulatedSource::L1dStoreMisses),
    cache_event(PERF_COUNT_HW_CACHE_L1I, PERF_COUNT_HW_CACHE_OP_READ, PERF_COUNT_HW_CACHE_RESULT_MISS,
                EmulatedSource::L1iMisses),
    // The last level is looked in on every L1D miss.
    cache_event(PERF_COUNT_HW_CACHE_LL, PERF_COUNT_HW_CACHE_OP_READ, PERF_COUNT_HW_CACHE_RESULT_ACCESS,
                EmulatedSource::L1dLoadMisses),
    cache_event(PERF_COUNT_HW_CACHE_LL, PERF_COUNT_HW_CACHE_OP_WRITE, PERF_COUNT_HW_CACHE_RESULT_ACCESS,
                EmulatedSource::L1dStoreMisses),
    cache_event(PERF_COUNT_HW_CACHE_LL, PERF_COUNT_HW_CACHE_OP_READ, PERF_COUNT_HW_CACHE_RESULT_MISS,
                EmulatedSource::LlLoadMisses),
    cache_event(PERF_COUNT_HW_CACHE_LL, PERF_COUNT_HW_CACHE_OP_WRITE, PERF_COUNT_HW_CACHE_RESULT_MISS,
                EmulatedSource::LlStoreMisses),
};

std::uint64_t load(std::uint64_t& counter) noexcept {
  return std::atomic_ref<std::uint64_t>(counter).load(std::memory_order_relaxed);
}

// The table's row for the event, or nullptr.
const KnownEvent* known_event(const Event& event) noexcept {
  const std::uint64_t config = event.attr.config & 0xffffffff;  // without a hybrid PMU's type
  for (const KnownEvent& known : kEvents)
    if (known.type == event.attr.type && known.config == config) return &known;
  return nullptr;
}

}  // namespace

bool EmulatorOptions::*emulated_option(const Event& event) noexcept {
  const KnownEvent* known = known_event(event);
  return known != nullptr ? known->needs : nullptr;
}

EmulatedSource emulated_source(const Event& event, const EmulatorOptions& options, std::string& why_not) {
  const perf_event_attr& attr = event.attr;
  why_not =
      "the emulated CPU counts instructions, branches, branch-misses, L1-dcache-loads, L1-dcache-stores and the "
      "cache model's misses (docs/emulated.md)";
  if (const KnownEvent* known = known_event(event)) {
    if (known->needs != nullptr && !(options.*known->needs)) {
      why_not = std::string("the emulated CPU was started without ") + known->what +
                ": count this event in the command's own measurement too, so that the emulated CPU starts with it "
                "(EmulatorOptions::" +
                known->option + ")";
      return EmulatedSource::None;
    }
    if (attr.exclude_user) {
      why_not = "the emulated CPU runs user-mode code only: it counts nothing in the kernel";
      return EmulatedSource::None;
    }
    why_not.clear();
    return known->source;
  }
  return EmulatedSource::None;
}

std::uint64_t emulated_value(EmulatedSource source, const EmulatedCounts& counts) noexcept {
  switch (source) {
    case EmulatedSource::None:
      return 0;
    case EmulatedSource::Instructions:
      return counts.instructions;
    case EmulatedSource::Branches:
      return counts.branches();
    case EmulatedSource::BranchMisses:
      return counts.branch_misses;
    case EmulatedSource::Loads:
      return counts.loads;
    case EmulatedSource::Stores:
      return counts.stores;
    case EmulatedSource::L1dLoadMisses:
      return counts.l1d_load_misses;
    case EmulatedSource::L1dStoreMisses:
      return counts.l1d_store_misses;
    case EmulatedSource::L1iMisses:
      return counts.l1i_misses;
    case EmulatedSource::LlLoadMisses:
      return counts.ll_load_misses;
    case EmulatedSource::LlStoreMisses:
      return counts.ll_store_misses;
    case EmulatedSource::LlAccesses:
      return counts.ll_accesses();
    case EmulatedSource::LlMisses:
      return counts.ll_misses();
  }
  return 0;
}

void add_slot(EmulatedCounts& counts, perfmon_emulate_slot& slot) noexcept {
  counts.instructions += load(slot.instructions);
  counts.conditional_branches += load(slot.conditional_branches);
  counts.direct_branches += load(slot.direct_branches);
  counts.indirect_branches += load(slot.indirect_branches);
  counts.loads += load(slot.loads);
  counts.stores += load(slot.stores);
  counts.branch_misses += load(slot.branch_misses);
  counts.l1d_load_misses += load(slot.l1d_load_misses);
  counts.l1d_store_misses += load(slot.l1d_store_misses);
  counts.l1i_misses += load(slot.l1i_misses);
  counts.ll_load_misses += load(slot.ll_load_misses);
  counts.ll_store_misses += load(slot.ll_store_misses);
  counts.ll_instruction_misses += load(slot.ll_instruction_misses);
  counts.samples += load(slot.samples);
  counts.samples_lost += load(slot.samples_lost);
}

EmulatorOptions options_of_flags(std::uint32_t flags) noexcept {
  EmulatorOptions options;
  options.branches = (flags & PERFMON_EMULATE_COUNTS_BRANCHES) != 0;
  options.memory_accesses = (flags & PERFMON_EMULATE_COUNTS_MEMORY) != 0;
  options.branch_prediction = (flags & PERFMON_EMULATE_COUNTS_PREDICTION) != 0;
  options.caches = (flags & PERFMON_EMULATE_COUNTS_CACHES) != 0;
  return options;
}

}  // namespace perfmon::emulation
