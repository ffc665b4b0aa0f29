// SPDX-License-Identifier: Apache-2.0
// Event sets from lists of events, one list a set, switched on a timeout or a trigger's count.
#include "perfmon/measurement.hpp"

namespace perfmon {

std::vector<EventSetDefinition> event_sets_of(const EventCatalog& catalog, const std::vector<std::string>& lists,
                                              const SetSwitching& switching) {
  std::vector<EventSetDefinition> sets;
  for (const std::string& list : lists) {
    EventSetDefinition set;
    set.id = static_cast<std::uint16_t>(sets.size());
    set.groups = catalog.parse(list);
    set.timeout = switching.timeout;
    if (!switching.trigger.empty()) {
      std::size_t index = 0, trigger = SIZE_MAX;
      for (const EventGroup& group : set.groups)
        for (const Event& event : group.events) {
          if (event.name == switching.trigger && trigger == SIZE_MAX) trigger = index;
          ++index;
        }
      if (trigger == SIZE_MAX) {
        for (EventGroup& group : catalog.parse(switching.trigger)) set.groups.push_back(std::move(group));
        trigger = index;
      }
      set.triggers = {{trigger, switching.period, 1}};
    }
    sets.push_back(std::move(set));
  }
  return sets;
}

}  // namespace perfmon
