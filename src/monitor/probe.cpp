#include "perfmon/probe.hpp"

#include <unistd.h>

#include <cerrno>

#include "kernel/explain.hpp"
#include "kernel/perf_event.hpp"

namespace perfmon {

std::string probe_event(const perf_event_attr& event_attr) {
  perf_event_attr attr = event_attr;
  attr.size = sizeof attr;
  attr.disabled = 1;
  int fd = kernel::perf_event_open_raw(attr, 0, -1, -1, 0);
  if (fd < 0 && (fd == -EACCES || fd == -EPERM) && !attr.exclude_kernel) {
    attr.exclude_kernel = 1;  // counting user space only is what an unprivileged user gets
    attr.exclude_hv = 1;
    fd = kernel::perf_event_open_raw(attr, 0, -1, -1, 0);
  }
  if (fd >= 0) {
    ::close(fd);
    return "";
  }
  return kernel::open_failure_cause(-fd, attr, 0, -1);
}

}  // namespace perfmon
