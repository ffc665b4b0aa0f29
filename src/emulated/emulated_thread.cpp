// SPDX-License-Identifier: Apache-2.0
#include "emulated/emulated_thread.hpp"

#include <sys/syscall.h>
#include <unistd.h>

#include <cstdlib>

#include "counters_abi.h"
#include "emulated/emulated_events.hpp"

namespace perfmon::emulation {

namespace {

// The plugin's answer, or false. Natively the kernel returns ENOSYS and writes nothing.
bool ask_plugin(perfmon_emulate_thread_read& answer) noexcept {
  answer = perfmon_emulate_thread_read{};
  ::syscall(PERFMON_EMULATE_READ_SYSCALL, &answer, static_cast<long>(PERFMON_EMULATE_VERSION), sizeof answer,
            PERFMON_EMULATE_READ_MAGIC);
  return answer.magic == PERFMON_EMULATE_READ_MAGIC;
}

}  // namespace

EmulatedCpuHere emulated_cpu_here() {
  EmulatedCpuHere here;
  const char* set = std::getenv("PERFMON_EMULATED_CPU");
  if (set == nullptr || *set == '\0') return here;
  perfmon_emulate_thread_read answer;
  if (!ask_plugin(answer)) {
    here.state = EmulatedCpuHere::State::Unanswered;
    here.why =
        "PERFMON_EMULATED_CPU is set, but perfmon's emulated CPU does not answer (the program runs natively, or "
        "under QEMU without perfmon's plugin): unset it to count natively, or run the program on perfmon's emulated "
        "CPU "
        "(docs/emulated.md)";
    return here;
  }
  if (answer.version != PERFMON_EMULATE_VERSION) {
    here.state = EmulatedCpuHere::State::Unanswered;
    here.why = "the emulated CPU's plugin speaks counters version " + std::to_string(answer.version) +
               " and this program's perfmon library version " + std::to_string(PERFMON_EMULATE_VERSION) +
               ": build the program with the perfmon whose plugin runs it";
    return here;
  }
  here.state = EmulatedCpuHere::State::Emulated;
  here.counting = options_of_flags(answer.flags);
  here.shared_slot = (answer.flags & PERFMON_EMULATE_SHARED_SLOT) != 0;
  return here;
}

bool read_emulated_thread(EmulatedCounts& counts) noexcept {
  perfmon_emulate_thread_read answer;
  if (!ask_plugin(answer) || answer.version != PERFMON_EMULATE_VERSION) return false;
  counts = EmulatedCounts{};
  add_slot(counts, answer.counts);
  return true;
}

}  // namespace perfmon::emulation
