// SPDX-License-Identifier: Apache-2.0
#include "events/counter_placement.hpp"

#include "events/sources/pmc_core.hpp"
#include "events/sources/sysfs_pmu.hpp"
#include "perfmon/error.hpp"

namespace perfmon::events {

std::string describe_counters(std::uint32_t counters) {
  std::string text;
  for (unsigned counter = 0; counter < 32; ++counter) {
    if (!((counters >> counter) & 1U)) continue;
    if (!text.empty()) text += " or ";
    text += "PMC" + std::to_string(counter);
  }
  return text;
}

std::vector<unsigned> place_on_counters(const std::vector<std::uint32_t>& masks, unsigned counter_count) {
  // Augmenting paths (Kuhn's matching): a handful of events and counters.
  std::vector<int> owner(counter_count, -1);
  std::vector<unsigned> placed(masks.size());
  for (std::size_t first = 0; first < masks.size(); ++first) {
    std::vector<bool> visited(counter_count, false);
    auto place = [&](auto& self, std::size_t event) -> bool {
      for (unsigned counter = 0; counter < counter_count; ++counter)  // a free counter first, lowest first
        if (((masks[event] >> counter) & 1U) && owner[counter] < 0) {
          owner[counter] = static_cast<int>(event);
          placed[event] = counter;
          return true;
        }
      for (unsigned counter = 0; counter < counter_count; ++counter) {
        if (!((masks[event] >> counter) & 1U) || visited[counter]) continue;
        visited[counter] = true;
        if (owner[counter] < 0 || self(self, static_cast<std::size_t>(owner[counter]))) {
          owner[counter] = static_cast<int>(event);
          placed[event] = counter;
          return true;
        }
      }
      return false;
    };
    if (!place(place, first)) return {};
  }
  return placed;
}

void check_counter_placement(const EventGroup& group) {
  std::vector<std::uint32_t> masks;
  std::vector<const Event*> counted;
  bool restricted = false;
  for (const Event& event : group.events) {
    if (!is_core_pmu(event.pmu, event.attr.type)) continue;
    restricted |= event.counters != 0;
    masks.push_back(event.counters != 0 ? event.counters : kPmcAnyCounter);
    counted.push_back(&event);
  }
  if (!restricted || !place_on_counters(masks, kPmcCoreCounters).empty()) return;
  std::string names, limits;
  for (const Event* event : counted) {
    names += (names.empty() ? "'" : ", '") + event->name + "'";
    if (event->counters != 0) limits += "; " + event->name + " counts only on " + describe_counters(event->counters);
  }
  throw Error(ErrorKind::InvalidEvent, "invalid event group: " + names +
                                           " cannot count at once on Intel Core Solo/Duo's two counters PMC0 and "
                                           "PMC1" +
                                           limits + "; put them in separate groups so that they take turns.");
}

}  // namespace perfmon::events
