// SPDX-License-Identifier: Apache-2.0
// The events of stat's and record's command lines as perf reads them: each -e is a list in perf's
// syntax, and a --filter applies to the last event of the -e before it (a tracepoint).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "options.hpp"
#include "perfmon/catalog.hpp"
#include "perfmon/event.hpp"

namespace perfmon::cli {

struct EventArguments {
  std::vector<std::string> lists;                            // each -e, as written
  std::vector<std::pair<std::size_t, std::string>> filters;  // (index in lists, the filter)
  char only_ring = 0;                                        // --all-user 'u', --all-kernel 'k'
  bool one_group = false;                                    // --group: every event in one group

  // -e with this help, --filter, --all-user and --all-kernel.
  std::vector<Option> options(std::string_view event_help);
  // The groups of every -e in order, each filter on its event. Throws perfmon::Error when a list
  // does not parse or a filter follows an event that is not a tracepoint.
  std::vector<EventGroup> parse(const EventCatalog& catalog) const;
  // --all-user or --all-kernel on every event (the defaults too), as perf applies them: each
  // counted in that ring only, its name given the modifier (cycles:u).
  void restrict_rings(std::vector<EventGroup>& groups) const;
  // --group (perf's): every event (the defaults too) in one group, led by the first, so that they
  // are on the counters together.
  void group_all(std::vector<EventGroup>& groups) const;
  // The --group option, with perf's short name where the command has one (stat's -g).
  Option group_option(char short_name);
};

// -c N and -F HZ, as perf record and perf top take them: a sample every N events, or about HZ a
// second.
std::vector<Option> sampling_rate_options(long& period, long& frequency);

// How samples get their call stacks: -g (frame pointers) or --call-graph fp|dwarf[,SIZE], as perf
// record and perf top take them.
struct CallGraphChoice {
  bool callchains = false;
  std::uint32_t user_stack_bytes = 0;  // --call-graph dwarf: the user stack copied into each sample
};
std::vector<Option> call_graph_options(CallGraphChoice& choice);

// The event to sample when none is named: cycles where the CPU's counters can be used, as perf
// does, else the kernel's cpu-clock timer, with `why` set to "sampling cpu-clock, not cycles: ...".
std::string default_sampled_event(const EventCatalog& catalog, std::string& why);

}  // namespace perfmon::cli
