// SPDX-License-Identifier: Apache-2.0
// perfmon: can this machine count an event? (Opens it on the calling thread and closes it.)
#pragma once

#include <linux/perf_event.h>

#include <optional>
#include <string>

namespace perfmon {

// "" when the event opens here; otherwise the cause and what to do, as one sentence.
std::string probe_event(const perf_event_attr& attr);

// Whether the event's PMU counts whole CPUs only (uncore, RAPL energy): it opens system-wide or on
// chosen CPUs, never on a thread or process.
bool counts_whole_cpus_only(const perf_event_attr& attr);

// How many programmable counters a measurement on this thread gets, found by trying: ever larger
// pinned groups of instructions:u are opened, enabled and read until the kernel refuses one or
// cannot schedule it (counters the NMI watchdog or another measurement holds are so found
// taken). `fixed_for_instructions`: fixed counters that take instructions (Intel: 1), taken off
// the group's size. Nothing where no hardware PMU opens instructions:u.
std::optional<int> probe_programmable_counters(int fixed_for_instructions);

}  // namespace perfmon
