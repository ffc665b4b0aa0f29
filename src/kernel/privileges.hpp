// What the running kernel lets this process do with perf events.
#pragma once

#include <string>

namespace perfmon::kernel {

// /proc/sys/kernel/perf_event_paranoid, or nullopt-like INT_MIN when unreadable.
int perf_event_paranoid() noexcept;
// What the paranoid level allows an unprivileged user, in one phrase.
std::string paranoid_meaning(int level);
bool has_capability(int capability) noexcept;
// root, CAP_PERFMON or CAP_SYS_ADMIN: every perf event is allowed whatever the paranoid level.
bool is_perf_privileged() noexcept;

}  // namespace perfmon::kernel
