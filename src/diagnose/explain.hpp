// SPDX-License-Identifier: Apache-2.0
// An errno from perf_event_open(2) turned into a sentence that names the cause and the fix, and
// into the kind of error it is.
#pragma once

#include <linux/perf_event.h>
#include <sys/types.h>

#include <string>
#include <string_view>

#include "perfmon/error.hpp"

namespace perfmon::diagnose {

// The cause and the fix, for listing several events that fail alike ("no hardware PMU is exposed: ...").
std::string open_failure_cause(int errnum, const perf_event_attr& attr, pid_t pid, int cpu);

// "cannot open event 'what': <cause and fix>". After EINVAL it names the attribute the kernel
// refused, found by opening again with each set attribute cleared in turn.
std::string describe_open_failure(int errnum, const perf_event_attr& attr, pid_t pid, int cpu, int group_fd,
                                  unsigned long flags, std::string_view what);

// What kind of error a perf_event_open(2) errno is.
ErrorKind open_error_kind(int errnum) noexcept;

// Whether the PMU of perf type `type` counts whole CPUs only: its sysfs directory (under `devices`)
// has a cpumask, as uncore and RAPL (power/energy-*) PMUs do. The kernel refuses such an event on a
// thread or process with EINVAL.
bool counts_whole_cpus_only(std::uint32_t type, const std::string& devices = "/sys/bus/event_source/devices");

// Whether errnum means "this machine cannot count that event" rather than a usage or permission error.
bool is_unsupported_errno(int errnum) noexcept;

}  // namespace perfmon::diagnose
