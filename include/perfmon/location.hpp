// SPDX-License-Identifier: Apache-2.0
// perfmon: where a measurement's events are opened — a thread, or a CPU.
#pragma once

#include <sys/types.h>

namespace perfmon {

// One place the events are opened at: a thread (cpu == -1) or a CPU (tid == -1).
struct Location {
  pid_t tid = -1;
  int cpu = -1;
};

}  // namespace perfmon
