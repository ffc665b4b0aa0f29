// SPDX-License-Identifier: Apache-2.0
// The pmc.core seed's table: the events of Intel Core Solo/Duo in data/freebsd-pmc-core.csv, with
// libpmc's name normalisation, its PMC-independent aliases, the counters (PMC0, PMC1) an event may
// use, and what each qualifier of a libpmc specifier (syntax/pmc_specifier.hpp) sets.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "events/syntax/spec.hpp"
#include "perfmon/perfevtsel.hpp"

namespace perfmon::events {

// The event-specific qualifiers (cmask= edge inv os usr are common to every event).
enum PmcQualifier : unsigned {
  kPmcCore = 1U << 0,        // core=all|this
  kPmcAgent = 1U << 1,       // agent=this|any
  kPmcPrefetch = 1U << 2,    // prefetch=both|only|exclude
  kPmcCacheState = 1U << 3,  // cachestate=[mesi]+
  kPmcTransition = 1U << 4,  // trans=any|frequency
};

inline constexpr std::string_view kPmcCoreModel = "coreduo";  // libpfm4's name for the model (--pmu)
inline constexpr unsigned kPmcCoreCounters = 2;               // PMC0 and PMC1
inline constexpr std::uint32_t kPmcAnyCounter = 0x3;          // bit n: the event may count on PMCn

struct PmcCoreEvent {
  std::string name;  // as the man page spells it: Br_Instr_Ret
  std::uint8_t event = 0;
  std::uint8_t umask = 0;   // fixed unit-mask bits (the qualifiers add theirs)
  unsigned qualifiers = 0;  // PmcQualifier bits
  std::uint32_t counters = kPmcAnyCounter;
  std::string description;
};

struct PmcAlias {
  std::string name;   // branches, "Instruction Retired", ...
  std::string event;  // the table event; empty when libpmc marks the alias unsupported on this CPU
};

const std::vector<PmcCoreEvent>& pmc_core_events();
const std::vector<PmcAlias>& pmc_core_aliases();

// libpmc's name comparison: case-insensitive, whitespace, '-' and '_' ignored.
std::string normalise_pmc_name(std::string_view name);

struct PmcEncoding {
  const PmcCoreEvent* event = nullptr;
  PerfEvtSel select;          // USR/OS set as the qualifiers say (neither: both); INT and EN clear
  bool rings_chosen = false;  // 'os' or 'usr' was given
};

// Resolves a specifier against the table; throws perfmon::Error with one sentence saying what is
// wrong and what the event accepts (the caller names the event it was about).
PmcEncoding encode_pmc_core(const PmcCoreSpec& specifier);
// The same for a specifier's text, "Event[,qualifier[=value]]...".
PmcEncoding encode_pmc_core(std::string_view specifier);

// The table events whose fixed event select and unit mask match `select` (its qualifier bits aside).
std::vector<const PmcCoreEvent*> find_pmc_core_events(const PerfEvtSel& select);

// The specifier that encodes `select` for `event` (an entry of find_pmc_core_events): every
// event-specific qualifier spelled out, then cmask, edge, inv and os or usr when not both.
std::string format_pmc_core(const PmcCoreEvent& event, const PerfEvtSel& select);

// The event-specific qualifiers `event` takes, with their choices: "core=all|this, prefetch=both|only|exclude".
std::string pmc_core_qualifiers(const PmcCoreEvent& event);

// The event's description for a listing: the table's text, its qualifiers and its counters.
std::string describe_pmc_core_event(const PmcCoreEvent& event);

// For a name written without pmc.core/...: the table's nearest names (normalised as libpmc does),
// written as -e takes them ("pmc.core/Br_Instr_Ret/").
std::vector<std::string> nearest_pmc_core_names(std::string_view name);

}  // namespace perfmon::events
