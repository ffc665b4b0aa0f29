// SPDX-License-Identifier: Apache-2.0
#include "monitor/locations.hpp"

#include <fcntl.h>
#include <linux/magic.h>
#include <linux/perf_event.h>
#include <sys/vfs.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <string>

#include "kernel/cpu_list.hpp"
#include "perfmon/error.hpp"

namespace perfmon::monitor {

// A directory of a cgroup file system (v2 or v1's): another directory ("/tmp") is no cgroup.
bool is_cgroup_directory(const std::string& path) {
  struct statfs filesystem {};
  std::error_code ec;
  return std::filesystem::is_directory(path, ec) && ::statfs(path.c_str(), &filesystem) == 0 &&
         (filesystem.f_type == CGROUP2_SUPER_MAGIC || filesystem.f_type == CGROUP_SUPER_MAGIC);
}

std::string resolve_cgroup_path(const std::string& path) {
  namespace fs = std::filesystem;
  if (path.empty())
    throw Error(ErrorKind::InvalidArgument, "a cgroup's name is empty: give a path below /sys/fs/cgroup.", EINVAL);
  if (path.starts_with('/') && is_cgroup_directory(path)) return path;
  for (const char* root : {"/sys/fs/cgroup/perf_event", "/sys/fs/cgroup", "/sys/fs/cgroup/unified"}) {
    const std::string candidate = (fs::path(root) / fs::path(path).relative_path()).string();
    if (is_cgroup_directory(candidate)) return candidate;
  }
  std::error_code ec;
  if (path.starts_with('/') && fs::is_directory(path, ec))
    throw Error(ErrorKind::InvalidArgument,
                "'" + path +
                    "' is not a cgroup: give a directory of the cgroup file system, such as system.slice (below "
                    "/sys/fs/cgroup).",
                ENOTDIR);
  throw Error(ErrorKind::NoSuchTarget,
              "no cgroup '" + path + "': give a path below /sys/fs/cgroup (for example system.slice).", ENOENT);
}

Locations::Locations(const Target& target, bool threads_per_cpu)
    : self_(target.kind == Target::Kind::Self),
      cpu_wide_(target.cpu_wide()),
      other_threads_(target.kind == Target::Kind::Threads) {
  const std::vector<int> thread_cpus = threads_per_cpu ? kernel::online_cpus() : std::vector<int>{-1};
  switch (target.kind) {
    case Target::Kind::Self:
      for (int cpu : thread_cpus) list_.push_back({0, cpu});
      break;
    case Target::Kind::Threads:
      for (pid_t tid : target.threads)
        for (int cpu : thread_cpus) list_.push_back({tid, cpu});
      break;
    case Target::Kind::Cgroup: {
      const std::string path = resolve_cgroup_path(target.cgroup);
      cgroup_.reset(::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
      if (!cgroup_) {
        int err = errno;
        throw Error(ErrorKind::NoSuchTarget, "cannot open cgroup '" + target.cgroup + "': " + std::strerror(err) + ".",
                    err);
      }
      // The kernel takes a directory of the cgroup file system only (any other is EBADF).
      struct statfs filesystem {};
      if (::fstatfs(cgroup_.get(), &filesystem) != 0 ||
          (filesystem.f_type != CGROUP2_SUPER_MAGIC && filesystem.f_type != CGROUP_SUPER_MAGIC))
        throw Error(ErrorKind::NoSuchTarget,
                    "'" + path +
                        "' is not a cgroup: give a directory of the cgroup file system, such as "
                        "system.slice (below /sys/fs/cgroup).",
                    ENOTDIR);
      [[fallthrough]];
    }
    case Target::Kind::Cpus:
      for (int cpu : target.cpus) list_.push_back({-1, cpu});
      break;
  }
  if (list_.empty())
    throw Error(ErrorKind::InvalidArgument, "nothing to monitor: the target names no thread and no CPU.", EINVAL);
}

pid_t Locations::pid(std::size_t location) const noexcept {
  if (self_) return 0;
  if (cgroup_) return cgroup_.get();
  return list_[location].tid;
}

unsigned long Locations::flags() const noexcept {
  return cgroup_ ? PERF_FLAG_PID_CGROUP : 0;
}

}  // namespace perfmon::monitor
