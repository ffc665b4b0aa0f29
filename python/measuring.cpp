#include "measuring.hpp"

#include <poll.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <thread>

namespace perfmonpy {

const perfmon::EventCatalog& catalog() {
  static const perfmon::EventCatalog known;
  return known;
}

py::tuple reading_arrays(const perfmon::Reading& reading) {
  const std::size_t n = reading.events.size();
  py::array_t<std::uint64_t> counts({n, std::size_t{3}});
  py::array_t<double> estimates({n, std::size_t{2}});
  py::array_t<bool> supported(n);
  auto c = counts.mutable_unchecked<2>();
  auto s = estimates.mutable_unchecked<2>();
  auto ok = supported.mutable_unchecked<1>();
  std::vector<std::string> names, parts, reasons;
  for (std::size_t e = 0; e < n; ++e) {
    const perfmon::ReadingEvent& event = reading.events[e];
    const perfmon::CounterValue& value = event.value;
    c(e, 0) = value.raw;
    c(e, 1) = value.enabled;
    c(e, 2) = value.running;
    s(e, 0) = event.estimate ? event.estimate->value : value.scaled();
    s(e, 1) = event.estimate && event.estimate->standard_error      ? *event.estimate->standard_error
              : value.running == value.enabled && value.running > 0 ? 0.0
                                                                    : std::nan("");
    ok(e) = event.supported;
    names.push_back(event.event.name);
    parts.push_back(event.label);
    reasons.push_back(event.unsupported_reason);
  }
  return py::make_tuple(names, parts, counts, estimates, supported, reasons);
}

void wait_a_while_for(pid_t pid) {
  const int fd = static_cast<int>(::syscall(SYS_pidfd_open, pid, 0));
  if (fd < 0) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    return;
  }
  pollfd ended{fd, POLLIN, 0};
  ::poll(&ended, 1, 100);
  ::close(fd);
}

}  // namespace perfmonpy
