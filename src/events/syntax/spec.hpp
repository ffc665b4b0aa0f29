// SPDX-License-Identifier: Apache-2.0
// An event string as its grammar reads it, before any name is looked up: what the string names
// (one alternative per syntax), the modifiers, and the Solaris cpc settings of its specification.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "perfmon/perfevtsel.hpp"

namespace perfmon::events {

struct Term {
  std::string key;
  std::optional<std::string> value;
};

// perf's modifier letters.
inline constexpr std::string_view kModifierLetters = "ukhGHpPDSIeW";
// The modifiers as messages list them: each as it is written (p, pp and ppp are precision levels).
inline constexpr std::string_view kModifiersWritten = "u k h G H p pp ppp P D S I e W";

// Parsed modifier letters.
struct Modifiers {
  bool user = false, kernel = false, hypervisor = false;
  bool guest = false, host = false;
  int precise = 0;            // number of 'p'
  bool max_precise = false;   // 'P'
  bool pinned = false;        // 'D'
  bool group_read = false;    // 'S'
  bool exclude_idle = false;  // 'I'
  bool exclusive = false;     // 'e'
  bool weak_group = false;    // 'W'
};

// A generic event, a perf alias or a sysfs event alias: cycles, faults, tsc.
struct NamedSpec {
  std::string name;
};
// pmu/term=value,.../: cpu/event=0x3c,umask=0x00/, msr/tsc/.
struct PmuSpec {
  std::string pmu;
  std::vector<Term> terms;
};
// rNNNN: a raw config for the core PMU.
struct RawSpec {
  std::uint64_t config = 0;
};
// subsystem:name.
struct TracepointSpec {
  std::string subsystem, name;
};
// mem:ADDR[/LEN][:rwx].
struct BreakpointSpec {
  std::uint64_t address = 0;
  std::uint32_t length = 0;  // 0: the default for the access type
  std::uint32_t access = 0;  // HW_BREAKPOINT_R | _W | _X
};
// A CPU-model name in libpfm4's syntax, modifiers included: L2_RQSTS.MISS:c=2, skl::INST_RETIRED:ANY_P:u.
struct LibpfmSpec {
  std::string text;
};
// pctr:WORD, an OpenBSD counter function word.
struct PctrSpec {
  PerfEvtSel select;
};
// pmc.core/Event[,qualifier[=value]].../, a FreeBSD libpmc specifier.
struct PmcCoreSpec {
  std::string event;
  std::vector<Term> qualifiers;  // keys and values in lower case, as libpmc compares them
};

using EventName =
    std::variant<NamedSpec, PmuSpec, RawSpec, TracepointSpec, BreakpointSpec, LibpfmSpec, PctrSpec, PmcCoreSpec>;

struct EventSpec {
  std::string text;  // the event as written, modifiers included
  EventName name;
  Modifiers modifiers;
  // Solaris cpc: the counter the event was given to (picN), and the attributes of the specification.
  std::optional<unsigned> cpc_counter;
  std::vector<Term> cpc_attributes;
};

struct GroupSpec {
  std::vector<EventSpec> events;
  bool braced = false;
};

}  // namespace perfmon::events
