// SPDX-License-Identifier: Apache-2.0
// perfmon: one event's counter held where it stands, zeroed, given a new overflow period and let
// go again, at every location of its measurement — what overflow handlers that re-preset counters
// need (Solaris cpc's rebind, perfmon2's PMD resets). Async-signal-safe: an ioctl per location,
// no allocation. Each returns 0, or the errno of the first location that failed (EINVAL for no
// such event; an event that opened nowhere, unsupported here, has nothing to control: 0).
//
//   perfmon::control_event(session, 0, perfmon::EventControl::Disable);
//   perfmon::control_event(session, 0, perfmon::EventControl::Zero);
//   perfmon::set_overflow_period(session, 0, 100000);
//   perfmon::control_event(session, 0, perfmon::EventControl::Enable);
#pragma once

#include <cstddef>
#include <cstdint>

#include "perfmon/event_sets.hpp"
#include "perfmon/session.hpp"

namespace perfmon {

enum class EventControl {
  Disable,  // stop counting, the count kept
  Enable,   // count on from where it stands (its group must be enabled for it to count)
  Zero,     // the count back to 0 (the times run on)
};

int control_event(const CounterSession& session, std::size_t index, EventControl control) noexcept;
// A sampling event's next overflow comes `period` events after now (or after its last overflow,
// as the kernel counts it).
int set_overflow_period(const CounterSession& session, std::size_t index, std::uint64_t period) noexcept;

// The same for event `index` of a set.
int control_event(const EventSets& sets, std::size_t set, std::size_t index, EventControl control) noexcept;
int set_overflow_period(const EventSets& sets, std::size_t set, std::size_t index, std::uint64_t period) noexcept;

}  // namespace perfmon
