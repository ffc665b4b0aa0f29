// SPDX-License-Identifier: Apache-2.0
// Solaris cpc_strtoevent(3CPC) specifications: "pic0=EC_ref,pic1=EC_hit[,sys][,nouser][,attr=value]",
// written cpc/.../ on perfmon's command line so that its commas stay inside one item:
//
//   item := 'cpc/' 'pic'N '=' event (',' 'pic'N '=' event)* [',sys'] [',nouser'] (',' attr['=' value])* '/'
//
// One group, ordered by counter number, counting user mode only unless 'sys' is given.
#pragma once

#include <string_view>

#include "events/syntax/spec.hpp"

namespace perfmon::events {

// Parses "cpc/.../"; throws perfmon::Error saying what was expected.
GroupSpec parse_cpc_specification(std::string_view text);

}  // namespace perfmon::events
