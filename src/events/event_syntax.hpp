// perf's event-list syntax, parsed into specs before any name is looked up.
//
//   list     := item (',' item)*
//   item     := '{' event (',' event)* '}' [':' modifiers] | event
//   event    := name [':' modifiers]                          generic or sysfs alias: cycles:u
//             | pmu '/' [term (',' term)*] '/' [':' modifiers]   cpu/event=0x3c,umask=0/
//             | 'r' HEX [':' modifiers]                        raw: r003c
//             | subsystem ':' name [':' modifiers]             tracepoint: sched:sched_switch
//             | 'mem:' ADDR ['/' LEN] [':' ACCESS] [':' modifiers]   breakpoint: mem:0x1000/8:w
//             | [pmu '::'] EVENT [('.'|':') UMASK] (':' mod['=' val])*  libpfm4: L2_RQSTS.MISS:c=2
//               (an event with '::' or a capital letter in its name; libpfm4 parses the rest)
//             | 'pctr:' WORD                                       OpenBSD pctr: pctr:0x2e|PCTR_UM_MESI|PCTR_U
//             | 'pmc.core/' EVENT (',' qualifier['=' value])* '/' [':' modifiers]
//                                                  FreeBSD libpmc, Core Solo/Duo: pmc.core/L2_Rqsts,core=all/
//   item     := 'cpc/' 'pic'N '=' event (',' 'pic'N '=' event)* [',sys'] [',nouser'] (',' attr['=' value])* '/'
//               Solaris libcpc: one group, ordered by counter number, user mode only unless 'sys'.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace perfmon::events {

struct Term {
  std::string key;
  std::optional<std::string> value;
};

// Parsed modifier letters (u k h G H p P D S I e W).
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

// Parses modifier letters; throws perfmon::Error naming the offending letter.
Modifiers parse_modifiers(std::string_view letters, std::string_view context);

struct EventSpec {
  enum class Kind { Named, Pmu, Raw, Tracepoint, Breakpoint, Libpfm, Pctr, FreebsdPmc };
  Kind kind = Kind::Named;
  std::string text;           // the event as written, modifiers included
  std::string name;           // Named: the name; Pmu: the PMU; Tracepoint: subsystem
  std::string event;          // Tracepoint: the event name; FreebsdPmc: the libpmc specifier
  std::vector<Term> terms;    // Pmu
  std::uint64_t raw = 0;      // Raw: config
  std::uint64_t address = 0;  // Breakpoint
  std::uint32_t length = 0;   // Breakpoint: 0 means the default for the access type
  std::uint32_t access = 0;   // Breakpoint: HW_BREAKPOINT_R | _W | _X
  Modifiers modifiers;
  std::vector<Term> cpc_attributes;     // Solaris cpc: cmask, umask, inv, edge for the whole spec
  std::optional<unsigned> cpc_counter;  // Solaris cpc: the N of picN
};

struct GroupSpec {
  std::vector<EventSpec> events;
  bool braced = false;
};

// Parses a whole -e argument; throws perfmon::Error with the position and what was expected.
std::vector<GroupSpec> parse_event_list_syntax(std::string_view text);

// Parses "key[=value],..." inside pmu/.../ (also used for sysfs alias definitions).
std::vector<Term> parse_terms(std::string_view text, std::string_view context);

// The text without leading and trailing whitespace.
std::string_view trim(std::string_view text);

// Parses a number as perf does: 0x hex, otherwise decimal.
std::optional<std::uint64_t> parse_number(std::string_view text);

}  // namespace perfmon::events
