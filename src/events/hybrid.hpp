// SPDX-License-Identifier: Apache-2.0
// Hybrid CPUs (Alder Lake and later) register one core PMU per kind of core, cpu_core and cpu_atom,
// each covering its CPUs, and no "cpu" PMU. As perf does there, a core event opens once per core
// PMU, for that PMU's CPUs.
#pragma once

#include <vector>

#include "events/sources/sysfs_pmu.hpp"
#include "perfmon/event.hpp"

namespace perfmon::events {

// The core PMUs of a hybrid CPU in CPU order (performance cores first), or none on other CPUs.
std::vector<const Pmu*> hybrid_core_pmus(const std::vector<Pmu>& pmus);

// The group as one group per core PMU: generic events carry the PMU type in config's high half, raw
// ones take it as their type, and each copy is named pmu/event/ with the event's own name as the
// total it adds to. Events of other PMUs stay in the first copy.
std::vector<EventGroup> split_for_hybrid(EventGroup group, const std::vector<const Pmu*>& cores);

}  // namespace perfmon::events
