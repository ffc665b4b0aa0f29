// SPDX-License-Identifier: Apache-2.0
#include "events/hybrid.hpp"

#include <algorithm>

namespace perfmon::events {

namespace {
// Events the kernel routes to "the" core PMU by type alone: these need a copy per core PMU.
bool has_generic_core_type(const Event& event) {
  std::uint32_t type = event.attr.type;
  return type == PERF_TYPE_HARDWARE || type == PERF_TYPE_HW_CACHE || type == PERF_TYPE_RAW;
}
}  // namespace

std::vector<const Pmu*> hybrid_core_pmus(const std::vector<Pmu>& pmus) {
  std::vector<const Pmu*> cores;
  for (const Pmu& pmu : pmus)
    if (pmu.name.starts_with("cpu_") && is_core_pmu(pmu.name, pmu.type) && !pmu.cpus.empty()) cores.push_back(&pmu);
  if (cores.size() < 2) cores.clear();
  std::sort(cores.begin(), cores.end(), [](const Pmu* a, const Pmu* b) { return a->cpus.front() < b->cpus.front(); });
  return cores;
}

std::vector<EventGroup> split_for_hybrid(EventGroup group, const std::vector<const Pmu*>& cores) {
  if (std::none_of(group.events.begin(), group.events.end(), has_generic_core_type)) return {std::move(group)};
  std::vector<EventGroup> split;
  for (const Pmu* pmu : cores) {
    EventGroup copy;
    for (const Event& event : group.events) {
      if (!has_generic_core_type(event)) {
        if (split.empty()) copy.events.push_back(event);
        continue;
      }
      Event per_pmu = event;
      if (event.attr.type == PERF_TYPE_RAW)
        per_pmu.attr.type = pmu->type;
      else
        per_pmu.attr.config = (event.attr.config & 0xffffffffULL) | (std::uint64_t{pmu->type} << 32);
      per_pmu.total_name = event.name;
      per_pmu.name = pmu->name + "/" + event.name + "/";
      per_pmu.pmu = pmu->name;
      per_pmu.cpus = pmu->cpus;
      copy.events.push_back(std::move(per_pmu));
    }
    split.push_back(std::move(copy));
  }
  return split;
}

}  // namespace perfmon::events
