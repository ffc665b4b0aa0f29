// SPDX-License-Identifier: Apache-2.0
#include "perfmon/event_control.hpp"

#include <cerrno>

#include "kernel/perf_event.hpp"

namespace perfmon {

namespace {

// Applies `apply` (fd -> -errno or 0) at every location the event opened at (none for an event
// this machine cannot count: nothing to do there).
template <typename Fd, typename Apply>
int at_every_location(std::size_t locations, Fd&& fd_at, Apply&& apply) noexcept {
  int first_error = 0;
  for (std::size_t location = 0; location < locations; ++location) {
    const int fd = fd_at(location);
    if (fd < 0) continue;
    if (const int err = -apply(fd); err != 0 && first_error == 0) first_error = err;
  }
  return first_error;
}

int control_fd(int fd, EventControl control) noexcept {
  switch (control) {
    case EventControl::Disable:
      return kernel::disable(fd, false);
    case EventControl::Enable:
      return kernel::enable(fd, false);
    case EventControl::Zero:
      return kernel::reset(fd, false);
  }
  return -EINVAL;
}

}  // namespace

int control_event(const CounterSession& session, std::size_t index, EventControl control) noexcept {
  if (index >= session.event_count()) return EINVAL;
  return at_every_location(
      session.locations().size(), [&](std::size_t l) { return session.fd(index, l); },
      [&](int fd) { return control_fd(fd, control); });
}

int set_overflow_period(const CounterSession& session, std::size_t index, std::uint64_t period) noexcept {
  if (index >= session.event_count()) return EINVAL;
  return at_every_location(
      session.locations().size(), [&](std::size_t l) { return session.fd(index, l); },
      [&](int fd) { return kernel::set_period(fd, period); });
}

int control_event(const EventSets& sets, std::size_t set, std::size_t index, EventControl control) noexcept {
  if (set >= sets.set_count() || index >= sets.event_count(set)) return EINVAL;
  return at_every_location(
      sets.locations().size(), [&](std::size_t l) { return sets.fd(set, index, l); },
      [&](int fd) { return control_fd(fd, control); });
}

int set_overflow_period(const EventSets& sets, std::size_t set, std::size_t index, std::uint64_t period) noexcept {
  if (set >= sets.set_count() || index >= sets.event_count(set)) return EINVAL;
  return at_every_location(
      sets.locations().size(), [&](std::size_t l) { return sets.fd(set, index, l); },
      [&](int fd) { return kernel::set_period(fd, period); });
}

}  // namespace perfmon
