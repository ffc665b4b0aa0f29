// SPDX-License-Identifier: Apache-2.0
// EventSets' reading: the sets' events, each labelled with its set, and the sentences that say
// how the sets took turns.
#include <cstdio>

#include "perfmon/event_sets.hpp"

namespace perfmon {

namespace {

// A standard error from fewer slices than this says nothing: the ratio estimator's error is itself
// an estimate from the slices' spread, and a handful of slices (a short command whose start falls in
// the first set's turn, say) gave "3,314 (+- 0.97%)" for a truth of 1,000.
constexpr std::uint64_t kFewestSlicesForAnError = 10;

std::string set_label(std::uint16_t id) {
  return "set" + std::to_string(id);
}

}  // namespace

Reading EventSets::reading() const {
  Reading reading;
  reading.locations = locations();
  // Each set's info once: taking one reads its timer.
  std::vector<EventSetInfo> infos;
  std::uint64_t whole = 0;
  for (std::size_t set = 0; set < set_count(); ++set) whole += infos.emplace_back(info(set)).active_ns;
  for (std::size_t set = 0; set < set_count(); ++set) {
    const EventSetInfo& set_info = infos[set];
    for (std::size_t i = 0; i < event_count(set); ++i) {
      ReadingEvent& out = reading.events.emplace_back();
      out.event = event(set, i);
      out.supported = supported(set, i);
      out.unsupported_reason = unsupported_reason(set, i);
      out.label = set_label(set_info.id);
      out.label_kind = "set";
      out.value = value(set, i);
      out.estimate = estimate(set, i);
      if (out.estimate->slices < kFewestSlicesForAnError) out.estimate->standard_error.reset();
    }
    reading.turns.push_back({set_label(set_info.id), set_info.runs, set_info.active_ns});
    std::string line =
        set_label(set_info.id) + ": " + std::to_string(set_info.runs) + (set_info.runs == 1 ? " run" : " runs");
    char share[64];
    std::snprintf(share, sizeof share, ", on the PMU %.2f%% of the time",
                  whole == 0 ? 0.0 : 100.0 * static_cast<double>(set_info.active_ns) / static_cast<double>(whole));
    line += share;
    if (set_info.timeout.count() > 0) {
      std::snprintf(share, sizeof share, ", switching after %.3f ms on the PMU",
                    static_cast<double>(set_info.timeout.count()) / 1e6);
      line += share;
    }
    if (set_info.next != infos[(set + 1) % infos.size()].id) line += ", then " + set_label(set_info.next);
    if (set_info.runs < kFewestSlicesForAnError && infos.size() > 1)
      line += "; too few runs for an error bar (" + std::to_string(kFewestSlicesForAnError) +
              " at least): its values are extrapolated from them alone, and may be far off";
    reading.summary.push_back(line);
  }
  reading.summary.push_back(std::to_string(switches()) +
                            " switches; '+- x%' is the standard error of a value extrapolated "
                            "from its set's share of the time.");
  reading.notes = notes();
  return reading;
}

}  // namespace perfmon
