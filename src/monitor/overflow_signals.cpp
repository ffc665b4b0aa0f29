// SPDX-License-Identifier: Apache-2.0
#include "monitor/overflow_signals.hpp"

#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string>

#include "kernel/perf_event.hpp"
#include "perfmon/error.hpp"

namespace perfmon::monitor {

bool OverflowSignals::asked(const SessionOptions& options) noexcept {
  return !options.overflow_periods.empty() || options.overflow_signal != 0 || options.stop_after != 0 ||
         options.overflow_records;
}

std::vector<EventGroup> OverflowSignals::with_periods(std::vector<EventGroup> groups, const Target& target,
                                                      const SessionOptions& options) {
  if (options.overflow_periods.empty() && options.overflow_signal == 0 && options.stop_after == 0) return groups;
  std::size_t events = 0;
  for (const EventGroup& group : groups) events += group.events.size();
  if (options.overflow_periods.size() > events)
    throw Error(ErrorKind::InvalidArgument,
                std::to_string(options.overflow_periods.size()) + " overflow periods for " + std::to_string(events) +
                    " events: give one per event at most.",
                EINVAL);
  if ((target.kind != Target::Kind::Self && options.overflow_thread == 0) || options.inherit)
    throw Error(ErrorKind::InvalidArgument,
                "overflow signals go to the thread that counts itself (Target::self()) or to an overflow_thread of "
                "this process, with inherit off: the kernel cannot stop an inherited event after N overflows, nor "
                "signal the thread of a child.",
                EINVAL);
  if (options.overflow_records && options.user_space_reads)
    throw Error(ErrorKind::InvalidArgument,
                "overflow records and user-mode reads both map the events' pages: choose one.", EINVAL);
  if (options.overflow_signal < 0 || options.overflow_signal > SIGRTMAX)
    throw Error(ErrorKind::InvalidArgument, "no signal " + std::to_string(options.overflow_signal) + ".", EINVAL);
  if (options.stop_after < 0)
    throw Error(ErrorKind::InvalidArgument, "stop_after counts overflows: 0 or more.", EINVAL);
  std::size_t index = 0;
  for (EventGroup& group : groups) {
    for (Event& event : group.events) {
      const std::uint64_t period = index < options.overflow_periods.size() ? options.overflow_periods[index] : 0;
      ++index;
      if (options.overflow_records) OverflowRecords::use_monotonic_clock(event);
      if (period == 0) continue;
      if (period >> 63)
        throw Error(ErrorKind::InvalidArgument,
                    "an overflow period of " + std::to_string(period) + " events for '" + event.name +
                        "' is past what the kernel takes (2^63 - 1).",
                    EINVAL);
      event.attr.sample_period = period;
      event.attr.freq = 0;
    }
  }
  return groups;
}

void OverflowSignals::request(OpenSettings& settings, const SessionOptions& options) {
  if (options.overflow_records) OverflowRecords::request(settings);
}

OverflowSignals::OverflowSignals(EventMatrix& matrix, const SessionOptions& options, const OpenSettings& settings)
    : stop_after_(options.stop_after) {
  overflows_.resize(matrix.event_count());
  for (std::size_t e = 0; e < matrix.event_count(); ++e)
    overflows_[e] = matrix.event(e).event.attr.sample_period != 0 ? 1 : 0;
  if (options.overflow_records) records_.emplace(matrix, settings);
  for (const OpenGroup& group : matrix.groups())
    for (std::size_t location = 0; location < group.at.size(); ++location) {
      const GroupFds& at = group.at[location];
      for (std::size_t k = 0; k < at.fds.size(); ++k) fds_.push_back({at.fds[k].get(), at.events[k], location});
    }
  if (options.overflow_signal == 0) return;
  const pid_t owner =
      options.overflow_thread != 0 ? options.overflow_thread : static_cast<pid_t>(::syscall(SYS_gettid));
  for (const EventFd& at : fds_)
    if (overflows_[at.event] != 0)
      if (int err = kernel::route_overflow_signal(at.fd, owner, options.overflow_signal); err != 0)
        throw Error(ErrorKind::System,
                    std::string("cannot route overflow signals to thread ") + std::to_string(owner) + ": " +
                        std::strerror(-err) + ".",
                    -err);
}

int OverflowSignals::arm() const noexcept {
  // Each overflowing event is armed on its own first: a refresh count belongs to one event.
  if (stop_after_ == 0) return 0;
  for (const EventFd& at : fds_)
    if (overflows_[at.event] != 0)
      if (int err = kernel::refresh(at.fd, stop_after_); err != 0) return -err;
  return 0;
}

long OverflowSignals::event_of_fd(int fd) const noexcept {
  for (const EventFd& at : fds_)
    if (at.fd == fd) return static_cast<long>(at.event);
  return -1;
}

bool OverflowSignals::take(int fd, std::size_t& event, Sample& sample) noexcept {
  if (!records_) return false;
  auto at = std::find_if(fds_.begin(), fds_.end(), [fd](const EventFd& e) { return e.fd == fd; });
  return at != fds_.end() && records_->take(at->location, event, sample);
}

int OverflowSignals::rearm(std::size_t index, std::uint64_t period, int overflows) const noexcept {
  if (index >= overflows_.size() || overflows_[index] == 0) return EINVAL;
  if (period >> 63) return EINVAL;
  const int count = overflows > 0 ? overflows : stop_after_;
  for (const EventFd& at : fds_) {
    if (at.event != index) continue;
    if (period != 0)
      if (int err = kernel::set_period(at.fd, period); err != 0) return -err;
    if (int err = count > 0 ? kernel::refresh(at.fd, count) : kernel::enable(at.fd, false); err != 0) return -err;
  }
  return 0;
}

}  // namespace perfmon::monitor
