// SPDX-License-Identifier: Apache-2.0
// FreeBSD libpmc's event specifier (the pmc.core seed): "Event[,qualifier[=value]]...". The
// grammar only: which qualifiers an event takes, and what they mean, is the table's (sources/pmc_core).
#pragma once

#include <string_view>

#include "events/syntax/spec.hpp"

namespace perfmon::events {

// Splits a specifier into its event name (spaces inside it kept) and its qualifiers, keys and
// values trimmed and in lower case. `context` names the event in errors (perfmon::Error).
PmcCoreSpec parse_pmc_specifier(std::string_view specifier, std::string_view context);

}  // namespace perfmon::events
