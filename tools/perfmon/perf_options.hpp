// SPDX-License-Identifier: Apache-2.0
// perf's options that perfmon does not take, refused as perf's: one sentence saying so and what to
// use instead, never a bare "unknown option" for a flag a perf user types.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace perfmon::cli {

// For `spelled` ("--stats", "-F"), an option of perf `command`'s: the sentence that refuses it.
// nullopt where perf has no such option either.
std::optional<std::string> perf_option_refusal(std::string_view command, std::string_view spelled);

}  // namespace perfmon::cli
