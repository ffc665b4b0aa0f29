#include "kernel/perf_event.hpp"

#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <string>

#include "kernel/explain.hpp"
#include "perfmon/error.hpp"

namespace perfmon::kernel {

int perf_event_open_raw(const perf_event_attr& attr, pid_t pid, int cpu, int group_fd, unsigned long flags) noexcept {
  long fd = ::syscall(SYS_perf_event_open, &attr, pid, cpu, group_fd, flags | PERF_FLAG_FD_CLOEXEC);
  return fd < 0 ? -errno : static_cast<int>(fd);
}

FileDescriptor open_event(const perf_event_attr& attr, pid_t pid, int cpu, int group_fd, unsigned long flags,
                          std::string_view what) {
  int fd = perf_event_open_raw(attr, pid, cpu, group_fd, flags);
  if (fd < 0) throw Error(describe_open_failure(-fd, attr, pid, cpu, group_fd, flags, what), -fd);
  return FileDescriptor(fd);
}

namespace {
std::string find_rejected_attribute(const perf_event_attr& attr, pid_t pid, int cpu, int group_fd,
                                    unsigned long flags) {
  struct Candidate {
    const char* name;
    bool set;
    void (*clear)(perf_event_attr&);
  };
  const Candidate candidates[] = {
      {"precise_ip (:p)", attr.precise_ip != 0, [](perf_event_attr& a) { a.precise_ip = 0; }},
      {"user/kernel/hypervisor filtering (:u, :k, :h)", attr.exclude_user || attr.exclude_kernel || attr.exclude_hv,
       [](perf_event_attr& a) { a.exclude_user = a.exclude_kernel = a.exclude_hv = 0; }},
      {"exclude_guest (:H)", attr.exclude_guest != 0, [](perf_event_attr& a) { a.exclude_guest = 0; }},
      {"exclude_host (:G)", attr.exclude_host != 0, [](perf_event_attr& a) { a.exclude_host = 0; }},
      {"exclude_idle (:I)", attr.exclude_idle != 0, [](perf_event_attr& a) { a.exclude_idle = 0; }},
      {"exclusive (:e)", attr.exclusive != 0, [](perf_event_attr& a) { a.exclusive = 0; }},
      {"pinned (:D)", attr.pinned != 0, [](perf_event_attr& a) { a.pinned = 0; }},
      {"inherit", attr.inherit != 0, [](perf_event_attr& a) { a.inherit = 0; }},
      {"enable_on_exec", attr.enable_on_exec != 0, [](perf_event_attr& a) { a.enable_on_exec = 0; }},
      {"the PERF_FORMAT_LOST read format", (attr.read_format & PERF_FORMAT_LOST) != 0,
       [](perf_event_attr& a) { a.read_format &= ~static_cast<__u64>(PERF_FORMAT_LOST); }},
      {"config1", attr.config1 != 0, [](perf_event_attr& a) { a.config1 = 0; }},
      {"config2", attr.config2 != 0, [](perf_event_attr& a) { a.config2 = 0; }},
  };
  for (const Candidate& candidate : candidates) {
    if (!candidate.set) continue;
    perf_event_attr trial = attr;
    candidate.clear(trial);
    int fd = perf_event_open_raw(trial, pid, cpu, group_fd, flags);
    if (fd >= 0) {
      ::close(fd);
      return candidate.name;
    }
  }
  return "";
}
}  // namespace

std::string describe_open_failure(int errnum, const perf_event_attr& attr, pid_t pid, int cpu, int group_fd,
                                  unsigned long flags, std::string_view what) {
  if (errnum == EINVAL) {
    if (std::string culprit = find_rejected_attribute(attr, pid, cpu, group_fd, flags); !culprit.empty())
      return "cannot open event '" + std::string(what) + "': the kernel rejects " + culprit +
             " for it; drop the modifier or option that sets it.";
  }
  return explain_open_failure(errnum, attr, pid, cpu, what);
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
int set_output(int fd, int target_fd) noexcept {
  return checked_ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, static_cast<unsigned long>(target_fd));
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
    int fd = perf_event_open_raw(attr, 0, -1, -1, 0);
    if (fd < 0) return false;
    ::close(fd);
    return true;
  }();
  return supported;
}

}  // namespace perfmon::kernel
