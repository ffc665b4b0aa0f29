// "Did you mean ...": the known names nearest to an unknown one.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace perfmon::events {

// Case-insensitive edit distance (insert, delete, substitute, swap of neighbours).
std::size_t edit_distance(std::string_view a, std::string_view b);

// Up to `limit` candidates close enough to `unknown` to be plausible typos, nearest first.
std::vector<std::string> nearest_names(std::string_view unknown, const std::vector<std::string>& candidates,
                                       std::size_t limit = 3);

// ", did you mean 'a' or 'b'?" — or "" when there is nothing close.
std::string did_you_mean(const std::vector<std::string>& names);

}  // namespace perfmon::events
