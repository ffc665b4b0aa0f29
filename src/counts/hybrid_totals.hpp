// SPDX-License-Identifier: Apache-2.0
// Hybrid CPUs: the rows of an event counted per core PMU (cpu_core/instructions/,
// cpu_atom/instructions/) are followed by a row that sums them under the event's own name, as perf
// prints both.
#pragma once

#include <vector>

#include "perfmon/stat.hpp"

namespace perfmon::analysis {

void append_hybrid_totals(std::vector<StatRow>& rows);

// The clocks (task-clock, cpu-clock) count nanoseconds and are shown in msec.
bool is_clock_event(std::uint32_t type, std::uint64_t config);

}  // namespace perfmon::analysis
