// EventSets' reading: the sets' events, each labelled with its set, and the sentences that say
// how the sets took turns.
#include <cstdio>

#include "perfmon/event_sets.hpp"

namespace perfmon {

namespace {

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
    }
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
    reading.summary.push_back(line);
  }
  reading.summary.push_back(std::to_string(switches()) +
                            " switches; '+- x%' is the standard error of a value extrapolated "
                            "from its set's share of the time.");
  reading.notes = notes();
  return reading;
}

}  // namespace perfmon
