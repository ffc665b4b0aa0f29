// SPDX-License-Identifier: Apache-2.0
// What the running kernel lets this process do with perf events.
#pragma once

#include <sys/types.h>

#include <climits>
#include <optional>
#include <string>

namespace perfmon::diagnose {

enum class Capability : int {
  SysAdmin = 21,  // CAP_SYS_ADMIN
  Perfmon = 38,   // CAP_PERFMON (Linux 5.8)
};

// /proc/sys/kernel/perf_event_paranoid, or kParanoidUnknown when unreadable.
inline constexpr int kParanoidUnknown = INT_MIN;
int perf_event_paranoid() noexcept;
// What the paranoid level allows an unprivileged user, in one phrase.
std::string paranoid_meaning(int level);
bool has_capability(Capability capability) noexcept;
// root, CAP_PERFMON or CAP_SYS_ADMIN: every perf event is allowed whatever the paranoid level.
bool is_perf_privileged() noexcept;

// The user that owns a process (its /proc directory's owner: the effective uid), or nullopt.
std::optional<uid_t> process_owner(pid_t pid) noexcept;

// The settings a decision about perf events rests on.
struct Privilege {
  int paranoid = 2;         // perf_event_paranoid
  bool privileged = false;  // root, CAP_PERFMON or CAP_SYS_ADMIN
};
Privilege current_privilege() noexcept;

}  // namespace perfmon::diagnose
