// errno from perf_event_open(2) turned into a sentence that names the cause and the fix.
#pragma once

#include <linux/perf_event.h>
#include <sys/types.h>

#include <string>
#include <string_view>

namespace perfmon::kernel {

// "cannot open event 'what': <cause and fix>."
std::string explain_open_failure(int errnum, const perf_event_attr& attr, pid_t pid, int cpu, std::string_view what);
// Just the cause and the fix, for listing several events that fail alike.
std::string open_failure_cause(int errnum, const perf_event_attr& attr, pid_t pid, int cpu);

// Facts the explanations (and `perfmon info`) rest on.
// Is a core PMU (the one behind PERF_TYPE_RAW / generic hardware events) registered?
bool core_pmu_exposed() noexcept;
// Does the CPU say it runs under a hypervisor (x86 CPUID.1:ECX[31], as /proc/cpuinfo shows)?
bool running_under_hypervisor() noexcept;
// Whether errnum means "this machine cannot count that event" rather than a usage or permission error.
bool is_unsupported_errno(int errnum) noexcept;

}  // namespace perfmon::kernel
