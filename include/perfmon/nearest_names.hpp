// SPDX-License-Identifier: Apache-2.0
// perfmon: "did you mean ...": the known names nearest to an unknown one, as the event catalogue
// suggests them for a mistyped event; for a program's own names too (perfmon's subcommands and
// options).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace perfmon {

// Up to `limit` of `candidates` close enough to `unknown` to be plausible typos of it (within a
// third of its length in edits, at least 2; case aside), nearest first.
std::vector<std::string> nearest_names(std::string_view unknown, const std::vector<std::string>& candidates,
                                       std::size_t limit = 3);

// "; did you mean 'a' or 'b'?" — or "" when there is nothing close.
std::string did_you_mean(const std::vector<std::string>& names);

}  // namespace perfmon
