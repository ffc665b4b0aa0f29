// SPDX-License-Identifier: Apache-2.0
// What the emulated CPU counts, event by event: one table for a CounterSession on an emulated
// command (the whole command, from the counters file) and on the emulated CPU itself (a region of
// the calling thread, from the plugin's answer to its read).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "counters_abi.h"
#include "perfmon/emulated.hpp"
#include "perfmon/event.hpp"

namespace perfmon::emulation {

enum class EmulatedSource : unsigned char {
  None,
  Instructions,
  Branches,
  BranchMisses,
  Loads,
  Stores,
  L1dLoadMisses,
  L1dStoreMisses,
  L1iMisses,
  LlLoadMisses,
  LlStoreMisses,
  LlAccesses,
  LlMisses
};

// Where the event's value comes from when the emulated CPU counts with `options`; None, with
// the reason in `why_not`, for an event it does not give.
EmulatedSource emulated_source(const Event& event, const EmulatorOptions& options, std::string& why_not);

// The option the emulated CPU must run with to count the event; nullptr for an event it counts
// always (instructions) or never.
bool EmulatorOptions::*emulated_option(const Event& event) noexcept;

// The event's value among the counts.
std::uint64_t emulated_value(EmulatedSource source, const EmulatedCounts& counts) noexcept;

// Adds one slot's counts (read with atomic loads: the plugin adds to them meanwhile).
void add_slot(EmulatedCounts& counts, perfmon_emulate_slot& slot) noexcept;

// The options the plugin counts with, from its PERFMON_EMULATE_COUNTS_* flags.
EmulatorOptions options_of_flags(std::uint32_t flags) noexcept;

// What was emulated, as a reading's summary says it: the CPU and QEMU, the processes and threads,
// branches by kind and the cache model where counted, execs that ran natively.
std::vector<std::string> emulated_summary(const EmulatedWorkload& workload);

}  // namespace perfmon::emulation
