// SPDX-License-Identifier: Apache-2.0
// A program's own view of perfmon's emulated CPU (counters_abi.h, "a thread's own counts"): whether
// it runs there, and what its calling thread has executed so far, for regions
// (CounterSession on Target::self()).
#pragma once

#include <string>

#include "perfmon/emulated.hpp"

namespace perfmon::emulation {

struct EmulatedCpuHere {
  enum class State {
    Native,     // PERFMON_EMULATED_CPU is not set: the kernel counts, as always
    Emulated,   // the plugin answered: its counts stand for the PMU's
    Unanswered  // PERFMON_EMULATED_CPU is set, but nothing answers as the plugin of this version
  } state = State::Native;
  EmulatorOptions counting;  // Emulated: what the plugin counts
  bool shared_slot = false;  // Emulated: the calling thread's counts are mixed with other threads'
  std::string why;           // Unanswered: why, and what to do
};

// Asks, once per call: PERFMON_EMULATED_CPU, then a read.
EmulatedCpuHere emulated_cpu_here();

// What the calling thread has executed so far on the emulated CPU; false when the plugin did not
// answer. One system call that QEMU hands to the plugin; no allocation.
bool read_emulated_thread(EmulatedCounts& counts) noexcept;

}  // namespace perfmon::emulation
