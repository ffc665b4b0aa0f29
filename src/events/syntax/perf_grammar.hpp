// SPDX-License-Identifier: Apache-2.0
// perf's syntax for one event, and the syntaxes perfmon reads in the same place:
//
//   event := name [':' modifiers]                                  generic or sysfs alias: cycles:u
//          | pmu '/' [term (',' term)*] '/' [[':'] modifiers]      cpu/event=0x3c,umask=0/
//          | 'r' HEX [':' modifiers]                               raw: r003c
//          | subsystem ':' name [':' modifiers]                    tracepoint: sched:sched_switch
//          | 'mem:' ADDR ['/' LEN] [':' ACCESS] [':' modifiers]    breakpoint: mem:0x1000/8:w
//          | [pmu '::'] EVENT [('.'|':') UMASK] (':' mod['=' val])*   libpfm4: L2_RQSTS.MISS:c=2
//            (an event with '::' or a capital letter in its name; libpfm4 parses the rest)
//          | 'pctr:' WORD                                          OpenBSD pctr: pctr:0x2e|PCTR_UM_MESI|PCTR_U
//          | 'pmc.core/' EVENT (',' qualifier['=' value])* '/' [[':'] modifiers]
//                                                   FreeBSD libpmc, Core Solo/Duo: pmc.core/L2_Rqsts,core=all/
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "events/syntax/spec.hpp"

namespace perfmon::events {

struct ParsedEvent {
  EventSpec spec;
  std::string letters;  // its modifier letters, parsed once a group's letters are added
};

// Parses one event; throws perfmon::Error saying what was expected.
ParsedEvent parse_event(std::string_view text);

// Parses modifier letters; throws perfmon::Error naming the offending letter.
Modifiers parse_modifiers(std::string_view letters, std::string_view context);

// Parses "key[=value],..." inside pmu/.../ (also used for sysfs alias definitions).
std::vector<Term> parse_terms(std::string_view text, std::string_view context);

// The event's name as perf spells an event it had to restrict to user space: its ring letters
// (u, k, h) replaced by 'u' ("cycles" -> "cycles:u", "cycles:ukp" -> "cycles:pu", "cpu/event=1/" ->
// "cpu/event=1/u").
std::string user_space_only_name(std::string_view name);

}  // namespace perfmon::events
