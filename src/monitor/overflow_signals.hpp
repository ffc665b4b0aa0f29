// SPDX-License-Identifier: Apache-2.0
// A counting session's overflow signals — Solaris cpc's CPC_BIND_EMT_OVF, perfmon2's notifying
// PMDs: the overflow periods checked and set, each descriptor's signal routed to a thread, events
// that stop themselves after N overflows armed and rearmed, and the records of what the kernel saw
// at each overflow. What the seeds' C interfaces need of a session (SessionOptions' overflow
// fields); CounterSession counts, and hands these to this.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "monitor/attr.hpp"
#include "monitor/event_matrix.hpp"
#include "monitor/overflow_records.hpp"
#include "perfmon/event.hpp"
#include "perfmon/sample.hpp"
#include "perfmon/session.hpp"
#include "perfmon/target.hpp"

namespace perfmon::monitor {

class OverflowSignals {
 public:
  // Whether the options ask for overflows at all.
  static bool asked(const SessionOptions& options) noexcept;
  // The groups with each event's overflow period set, after checking the options against the
  // target. Throws perfmon::Error.
  static std::vector<EventGroup> with_periods(std::vector<EventGroup> groups, const Target& target,
                                              const SessionOptions& options);
  // What the open needs for overflow records (each event's ring).
  static void request(OpenSettings& settings, const SessionOptions& options);

  // Over the opened events: routes the signals (throws perfmon::Error where the kernel refuses)
  // and maps the records' rings.
  OverflowSignals(EventMatrix& matrix, const SessionOptions& options, const OpenSettings& settings);

  // Arms every event that stops itself with its overflow count: before the session's enable.
  // 0 or an errno.
  int arm() const noexcept;
  // The event whose descriptor `fd` is, or -1. Async-signal-safe.
  long event_of_fd(int fd) const noexcept;
  // CounterSession::rearm, take_overflow. Async-signal-safe.
  int rearm(std::size_t index, std::uint64_t period, int overflows) const noexcept;
  bool take(int fd, std::size_t& event, Sample& sample) noexcept;

 private:
  // Every descriptor with its event and location.
  struct EventFd {
    int fd;
    std::size_t event;
    std::size_t location;
  };
  std::vector<EventFd> fds_;
  std::vector<unsigned char> overflows_;  // by event: it has a period
  int stop_after_ = 0;
  std::optional<OverflowRecords> records_;
};

}  // namespace perfmon::monitor
