// SPDX-License-Identifier: Apache-2.0
// Where stat and record measure: -p, -t, -a, -C (and stat's -G), parsed and checked the same way
// for both, into the library's TargetChoice.
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "options.hpp"
#include "perfmon/measurement.hpp"

namespace perfmon::cli {

using perfmon::TargetChoice;

enum class Measure { Count, Sample };
// The options -p, -t, -a and -C, their help saying what is done.
std::vector<Option> target_options(TargetChoice& choice, Measure measure);
// How many of -p, -t and -a/-C were given (more than one is a usage error).
int targets_given(const TargetChoice& choice);

}  // namespace perfmon::cli
