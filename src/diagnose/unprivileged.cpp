// SPDX-License-Identifier: Apache-2.0
#include "diagnose/unprivileged.hpp"

#include <fcntl.h>
#include <grp.h>
#include <linux/perf_event.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>

#include "diagnose/privileges.hpp"
#include "kernel/perf_event.hpp"

namespace perfmon::diagnose {

namespace {

constexpr uid_t kNobody = 65534;

// Whether task-clock opens on this process (user space only or with the kernel) or on CPU 0.
bool opens(bool kernel, bool cpu_wide) noexcept {
  perf_event_attr attr{};
  attr.size = sizeof attr;
  attr.type = PERF_TYPE_SOFTWARE;
  attr.config = PERF_COUNT_SW_TASK_CLOCK;
  attr.disabled = 1;
  attr.exclude_kernel = kernel ? 0 : 1;
  attr.exclude_hv = 1;
  const int fd = kernel::perf_event_open(attr, cpu_wide ? -1 : 0, cpu_wide ? 0 : -1, -1, 0);
  if (fd < 0) return false;
  ::close(fd);
  return true;
}

unsigned char try_all() noexcept {
  return static_cast<unsigned char>((opens(false, false) ? 1 : 0) | (opens(true, false) ? 2 : 0) |
                                    (opens(true, true) ? 4 : 0));
}

// The three answers as nobody: a child drops to its uid and gid (which clears its capabilities) and
// reports through a pipe. Returns -1 when that could not be done.
int try_as_nobody() {
  int pipe_fds[2];
  if (::pipe2(pipe_fds, O_CLOEXEC) != 0) return -1;
  const pid_t child = ::fork();
  if (child < 0) {
    ::close(pipe_fds[0]);
    ::close(pipe_fds[1]);
    return -1;
  }
  if (child == 0) {
    ::close(pipe_fds[0]);
    unsigned char answers = 0xff;
    if (::setgroups(0, nullptr) == 0 && ::setresgid(kNobody, kNobody, kNobody) == 0 &&
        ::setresuid(kNobody, kNobody, kNobody) == 0)
      answers = try_all();
    ssize_t written = ::write(pipe_fds[1], &answers, 1);
    ::_exit(written == 1 ? 0 : 1);
  }
  ::close(pipe_fds[1]);
  unsigned char answers = 0xff;
  const ssize_t got = ::read(pipe_fds[0], &answers, 1);
  ::close(pipe_fds[0]);
  int status;
  while (::waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  return got == 1 && answers != 0xff ? answers : -1;
}

}  // namespace

UnprivilegedAccess probe_unprivileged_access() {
  UnprivilegedAccess access;
  int answers = -1;
  if (!is_perf_privileged())
    answers = try_all();
  else if (::geteuid() == 0)
    answers = try_as_nobody();
  if (answers < 0) {
    access.summary = "not tried (this process is privileged but not root, so it cannot act as another user)";
    return access;
  }
  access.probed = true;
  access.own_user_space = answers & 1;
  access.own_kernel = answers & 2;
  access.cpu_wide = answers & 4;
  if (access.cpu_wide)
    access.summary = "own processes, the kernel and whole CPUs";
  else if (access.own_kernel)
    access.summary = "own processes, kernel included, but not whole CPUs";
  else if (access.own_user_space)
    access.summary = "own processes, user space only";
  else
    access.summary = "nothing: perf events are closed";
  return access;
}

}  // namespace perfmon::diagnose
