// SPDX-License-Identifier: Apache-2.0
#include "kernel/perf_event.hpp"

#include <fcntl.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>

namespace perfmon::kernel {

int perf_event_open(const perf_event_attr& attr, pid_t pid, int cpu, int group_fd, unsigned long flags) noexcept {
  long fd = ::syscall(SYS_perf_event_open, &attr, pid, cpu, group_fd, flags | PERF_FLAG_FD_CLOEXEC);
  return fd < 0 ? -errno : static_cast<int>(fd);
}

namespace {
int checked_ioctl(int fd, unsigned long request, unsigned long arg) noexcept {
  return ::ioctl(fd, request, arg) < 0 ? -errno : 0;
}
}  // namespace

int enable(int fd, bool group) noexcept {
  return checked_ioctl(fd, PERF_EVENT_IOC_ENABLE, group ? PERF_IOC_FLAG_GROUP : 0);
}
int disable(int fd, bool group) noexcept {
  return checked_ioctl(fd, PERF_EVENT_IOC_DISABLE, group ? PERF_IOC_FLAG_GROUP : 0);
}
int reset(int fd, bool group) noexcept {
  return checked_ioctl(fd, PERF_EVENT_IOC_RESET, group ? PERF_IOC_FLAG_GROUP : 0);
}
int refresh(int fd, int count) noexcept {
  return checked_ioctl(fd, PERF_EVENT_IOC_REFRESH, static_cast<unsigned long>(count));
}
int set_period(int fd, std::uint64_t period) noexcept {
  return ::ioctl(fd, PERF_EVENT_IOC_PERIOD, &period) < 0 ? -errno : 0;
}
int set_filter(int fd, const char* filter) noexcept {
  return ::ioctl(fd, PERF_EVENT_IOC_SET_FILTER, filter) < 0 ? -errno : 0;
}
int set_output(int fd, int target_fd) noexcept {
  return checked_ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, static_cast<unsigned long>(target_fd));
}
int route_overflow_signal(int fd, pid_t tid, int signo) noexcept {
  const f_owner_ex owner{F_OWNER_TID, tid};
  if (::fcntl(fd, F_SETOWN_EX, &owner) != 0 || ::fcntl(fd, F_SETSIG, signo) != 0) return -errno;
  const int flags = ::fcntl(fd, F_GETFL);
  if (flags < 0 || ::fcntl(fd, F_SETFL, flags | O_ASYNC) != 0) return -errno;
  return 0;
}
std::uint64_t event_id(int fd) noexcept {
  std::uint64_t id = 0;
  return ::ioctl(fd, PERF_EVENT_IOC_ID, &id) < 0 ? 0 : id;
}

bool supports_format_lost() noexcept {
  static const bool supported = [] {
    perf_event_attr attr{};
    attr.size = sizeof(attr);
    attr.type = PERF_TYPE_SOFTWARE;
    attr.config = PERF_COUNT_SW_DUMMY;
    attr.disabled = 1;
    attr.exclude_kernel = 1;
    attr.exclude_hv = 1;
    attr.read_format = PERF_FORMAT_LOST;
    int fd = perf_event_open(attr, 0, -1, -1, 0);
    if (fd < 0) return false;
    ::close(fd);
    return true;
  }();
  return supported;
}

}  // namespace perfmon::kernel
