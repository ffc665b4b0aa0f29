// SPDX-License-Identifier: Apache-2.0
// Intel's architectural performance events (the MSR tutorial seed; SDM Vol. 3): the events every
// Intel CPU with CPUID leaf 0AH counts alike, and the fixed counters, from
// data/intel-architectural-events.csv.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace perfmon::events {

struct ArchitecturalEvent {
  bool fixed = false;
  std::string name;                // INST_RETIRED.ANY_P
  std::string architectural_name;  // "Instructions Retired"
  std::uint8_t event = 0, umask = 0;
  std::optional<unsigned> ebx_bit;         // general-purpose events: their CPUID.0AH EBX bit
  std::optional<unsigned> fixed_counter;   // fixed events: the counter index
  std::optional<std::uint32_t> fixed_msr;  // and its MSR (IA32_FIXED_CTRn)
};

// The table, parsed once.
const std::vector<ArchitecturalEvent>& intel_architectural_events();
// The entry named `name` (case-insensitive), or nullptr.
const ArchitecturalEvent* find_architectural_event(const std::string& name);
// The general-purpose entry with this event select and unit mask, or nullptr.
const ArchitecturalEvent* find_architectural_event(std::uint8_t event, std::uint8_t umask);

}  // namespace perfmon::events
