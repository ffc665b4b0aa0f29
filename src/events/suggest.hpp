// SPDX-License-Identifier: Apache-2.0
// "Did you mean ...": the known names nearest to an unknown one.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "perfmon/nearest_names.hpp"  // the one-off lookup, and the sentence

namespace perfmon::events {

// Case-insensitive edit distance (insert, delete, substitute, swap of neighbours).
std::size_t edit_distance(std::string_view a, std::string_view b);

// Known names prepared once for many lookups: lower-cased, sorted by length, each with a count of
// its characters. A lookup computes distances only for names whose length and characters could be
// close enough, and stops a distance as soon as it exceeds the plausible, so that an unknown name
// costs microseconds against thousands of vendor names.
class NameIndex {
 public:
  NameIndex() = default;
  explicit NameIndex(std::vector<std::string> names);

  // Up to `limit` names close enough to `unknown` to be plausible typos, nearest first.
  std::vector<std::string> nearest(std::string_view unknown, std::size_t limit = 3) const;

 private:
  using Histogram = std::array<std::uint8_t, 32>;  // characters folded into 32 buckets, saturating
  struct Entry {
    std::string lowered;
    Histogram histogram;
    std::size_t index;  // into names_
  };
  std::vector<std::string> names_;
  std::vector<Entry> entries_;  // by length

  static Histogram histogram_of(std::string_view lowered);
};

}  // namespace perfmon::events
