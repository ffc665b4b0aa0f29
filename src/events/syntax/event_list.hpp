// SPDX-License-Identifier: Apache-2.0
// perf's event-list syntax, the whole argument of -e, parsed into specs before any name is looked up:
//
//   list := item (',' item)*
//   item := '{' event (',' event)* '}' [':' modifiers] | event | cpc-specification
//
// (event: perf_event.hpp; cpc-specification: cpc.hpp). An event outside braces is a group of its own.
#pragma once

#include <string_view>
#include <vector>

#include "events/syntax/spec.hpp"

namespace perfmon::events {

// Parses a whole event list; throws perfmon::Error with the position and what was expected.
std::vector<GroupSpec> parse_event_list_syntax(std::string_view text);

}  // namespace perfmon::events
