// SPDX-License-Identifier: Apache-2.0
// What a user without privileges may do with perf events here, found by trying rather than read off
// perf_event_paranoid: distribution kernels differ in what a level means (Debian's 3 forbids all,
// upstream has no 3).
#pragma once

#include <string>

namespace perfmon::diagnose {

struct UnprivilegedAccess {
  bool probed = false;          // false: this process is privileged without being root, so it cannot drop to a user
  bool own_user_space = false;  // count its own processes in user space
  bool own_kernel = false;      // ... and in the kernel
  bool cpu_wide = false;        // count whole CPUs
  std::string summary;          // the above as a clause: "own processes, user space only"
};

// Tries a software event as this process when it is unprivileged, and as user nobody (in a child
// that drops to uid and gid 65534) when it is root.
UnprivilegedAccess probe_unprivileged_access();

}  // namespace perfmon::diagnose
