// SPDX-License-Identifier: Apache-2.0
// perfmon: a name kept once and referred to by its index — the commands, files, functions and
// source lines of a profile (Profile::name), of a pprof profile's tables and of a report's rows.
#pragma once

#include <cstdint>

namespace perfmon {

using NameId = std::uint32_t;

}  // namespace perfmon
