// SPDX-License-Identifier: Apache-2.0
// perfmon: what an event becomes in the hardware (the x86 event-select value the kernel programs, the
// counter it may use), and the way back from a PERFEVTSEL value to the events it names.
#pragma once

#include <linux/perf_event.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "perfmon/catalog.hpp"
#include "perfmon/perfevtsel.hpp"

namespace perfmon {

struct EventEncoding {
  std::string name;                        // as written
  std::string pmu;                         // the PMU that counts it
  std::string architectural_name;          // Intel architectural events: "Instructions Retired"
  std::optional<PerfEvtSel> select;        // x86 core-PMU events: the PERFEVTSEL value programmed
  std::optional<unsigned> fixed_counter;   // Intel fixed-function events: the counter,
  std::optional<std::uint32_t> fixed_msr;  // and its MSR (IA32_FIXED_CTRn)
  std::optional<unsigned> cpuid_ebx_bit;   // the CPUID.0AH:EBX bit saying whether the CPU has it
  std::string counters;                    // the counters it is limited to ("PMC1"); "" for any
  perf_event_attr attr{};
};

// The encodings of each event of a list: anything EventCatalog::parse takes and, without a forced
// CPU model, Intel's architectural names with perf's modifiers (INST_RETIRED.ANY,
// LONGEST_LAT_CACHE.MISS:u). Throws perfmon::Error.
std::vector<EventEncoding> encode_events(const EventCatalog& catalog, std::string_view list);

struct SelectDecoding {
  struct Name {
    std::string name;    // INST_RETIRED.ANY_P, pmc.core/L2_Rqsts,core=all/
    std::string origin;  // "Intel architectural: Instructions Retired", "coreduo", "this CPU's table"
  };
  PerfEvtSel select;
  std::string pctr_word;    // OpenBSD pctr's spelling of the value
  std::vector<Name> names;  // Intel's architectural events and those of the catalogue's model with this code
  perf_event_attr attr{};   // as perf opens it on x86's core PMU
};

// Decodes a PERFEVTSEL value and names its event in the catalogue's CPU model (the host's when none
// is forced). Throws perfmon::Error when reserved bits are set.
SelectDecoding decode_perfevtsel(const EventCatalog& catalog, std::uint64_t value);
// The same for a value written as perf writes numbers (0x hex, or decimal).
SelectDecoding decode_perfevtsel(const EventCatalog& catalog, std::string_view value);

}  // namespace perfmon
