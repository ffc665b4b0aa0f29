// The events of stat's and record's command lines as perf reads them: each -e is a list in perf's
// syntax, and a --filter applies to the last event of the -e before it (a tracepoint).
#pragma once

#include <cstddef>
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

  // -e with this help, and --filter.
  std::vector<Option> options(std::string_view event_help);
  // The groups of every -e in order, each filter on its event. Throws perfmon::Error when a list
  // does not parse or a filter follows an event that is not a tracepoint.
  std::vector<EventGroup> parse(const EventCatalog& catalog) const;
};

}  // namespace perfmon::cli
