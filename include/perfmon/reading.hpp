// SPDX-License-Identifier: Apache-2.0
// perfmon: one value for what a measurement counted, whichever way it counted — a CounterSession
// (on the kernel's counters, or on perfmon's emulated CPU) or EventSets. Every report reads it:
// stat's rows (stat.hpp), and whatever exports or binds perfmon.
//
//   session.stop();
//   session.read();
//   perfmon::Reading reading = session.reading();
//   for (const perfmon::ReadingEvent& e : reading.events) use(e.event.name, e.value.scaled());
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "perfmon/counter.hpp"
#include "perfmon/estimate.hpp"
#include "perfmon/event.hpp"
#include "perfmon/location.hpp"

namespace perfmon {

// What a measurement changed so that the kernel would take an event. It never does so silently:
// its notes say it, and the event holds the attr as the kernel took it.
struct OpenFallbacks {
  bool lower_precision = false;   // ':P': precise_ip lowered to what the PMU takes
  bool user_space_only = false;   // perf_event_paranoid forbids counting the kernel: user space only
  bool split_from_group = false;  // ':W': the group could not be opened whole; counted on its own
};

// One event of a reading, with its values.
struct ReadingEvent {
  Event event;  // as opened: its name as written, its attr as the kernel took it
  OpenFallbacks fallbacks;
  // False when this machine cannot count the event; unsupported_reason says why (a cause and a fix).
  bool supported = true;
  std::string unsupported_reason;
  // A pinned group the kernel could not keep on the PMU.
  bool scheduling_failed = false;
  // The part of the measurement that counted it, where it has parts: "set0" (label_kind "set"),
  // "pass2" ("pass"); empty for a measurement of one part.
  std::string label;
  std::string label_kind;
  CounterValue value;                     // summed over the locations
  std::vector<CounterValue> at;           // per location (Reading::locations); empty where not kept apart
  std::optional<CountEstimate> estimate;  // the extrapolated value and its standard error, where known
};

// A part of a measurement that takes turns on the PMU (an event set): how often, and how long.
struct ReadingTurns {
  std::string label;            // "set0"
  std::uint64_t runs = 0;       // its turns
  std::uint64_t active_ns = 0;  // on the PMU, summed over locations
};

struct Reading {
  std::vector<ReadingEvent> events;
  std::vector<Location> locations;
  bool emulated = false;  // counted on perfmon's emulated CPU, not by the host's PMU
  // How it was counted, in sentences, where that is more than "all the time on the PMU": each
  // event set's turns and share of the time, what the emulated CPU was and did.
  std::vector<std::string> summary;
  // What the measurement did on the user's behalf (a fallback to user space, a lowered precision).
  std::vector<std::string> notes;
  std::vector<ReadingTurns> turns;  // each part that took turns (event sets), in order
};

}  // namespace perfmon
