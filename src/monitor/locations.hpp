// SPDX-License-Identifier: Apache-2.0
// Where events are opened: the target's threads or CPUs as perf_event_open(2) takes them (pid,
// cpu, flags), with the cgroup's directory held open for a cgroup target.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

#include "kernel/fd.hpp"
#include "perfmon/location.hpp"
#include "perfmon/target.hpp"

namespace perfmon::monitor {

// A cgroup's directory: an absolute path as it is, else found below the cgroup mounts (v1's
// perf_event hierarchy, v2's at /sys/fs/cgroup or /sys/fs/cgroup/unified). Throws perfmon::Error
// naming it where none holds it.
std::string resolve_cgroup_path(const std::string& path);

class Locations {
 public:
  // Throws perfmon::Error when the target names nothing or its cgroup does not exist. With
  // `threads_per_cpu`, each thread of a thread target is a location on every online CPU, as perf
  // record opens them: the kernel maps an inherited per-thread event only when it has a CPU.
  explicit Locations(const Target& target, bool threads_per_cpu = false);

  const std::vector<Location>& list() const noexcept { return list_; }
  std::size_t size() const noexcept { return list_.size(); }
  // The pid argument: 0 for the calling thread, a tid, -1 CPU-wide, or the cgroup's fd.
  pid_t pid(std::size_t location) const noexcept;
  int cpu(std::size_t location) const noexcept { return list_[location].cpu; }
  // PERF_FLAG_PID_CGROUP for a cgroup target.
  unsigned long flags() const noexcept;
  bool cpu_wide() const noexcept { return cpu_wide_; }
  // Other threads (of a process or a workload), which may exit while they are being opened.
  bool other_threads() const noexcept { return other_threads_; }

 private:
  std::vector<Location> list_;
  kernel::FileDescriptor cgroup_;
  bool self_ = false;
  bool cpu_wide_ = false;
  bool other_threads_ = false;
};

}  // namespace perfmon::monitor
