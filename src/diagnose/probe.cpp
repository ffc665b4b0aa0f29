#include "perfmon/probe.hpp"

#include <unistd.h>

#include <optional>

#include "diagnose/explain.hpp"
#include "diagnose/fallback.hpp"
#include "kernel/perf_event.hpp"

namespace perfmon {

std::string probe_event(const perf_event_attr& event_attr) {
  perf_event_attr attr = event_attr;
  attr.size = sizeof attr;
  attr.disabled = 1;
  std::optional<diagnose::Privilege> privilege;  // read only if the kernel refuses
  while (true) {
    int fd = kernel::perf_event_open(attr, 0, -1, -1, 0);
    if (fd >= 0) {
      ::close(fd);
      return "";
    }
    if (!privilege) privilege = diagnose::current_privilege();
    // What a session would fall back to counts as usable here too.
    diagnose::NextAttempt next = diagnose::next_attempt({attr, -fd}, *privilege);
    if (next.fallback == diagnose::Fallback::None) return diagnose::open_failure_cause(-fd, attr, 0, -1);
    attr = next.attr;
  }
}

}  // namespace perfmon
