// SPDX-License-Identifier: Apache-2.0
#include "events/suggest.hpp"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <numeric>

namespace perfmon::events {

namespace {

std::string lowered(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// The optimal-string-alignment distance of two lower-cased strings, or `bound + 1` as soon as it is
// known to exceed `bound`. Three rows suffice; the caller lends them so that a lookup allocates once.
std::size_t bounded_distance(std::string_view a, std::string_view b, std::size_t bound,
                             std::vector<std::size_t> (&rows)[3]) {
  const std::size_t n = a.size(), m = b.size();
  for (auto& row : rows) row.assign(m + 1, 0);
  std::vector<std::size_t>* before = &rows[0];
  std::vector<std::size_t>* previous = &rows[1];
  std::vector<std::size_t>* current = &rows[2];
  std::iota(previous->begin(), previous->end(), 0);
  std::size_t previous_min = 0;
  for (std::size_t i = 1; i <= n; ++i) {
    std::vector<std::size_t>& cur = *current;
    const std::vector<std::size_t>& prev = *previous;
    cur[0] = i;
    std::size_t row_min = i;
    for (std::size_t j = 1; j <= m; ++j) {
      const std::size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
        cur[j] = std::min(cur[j], (*before)[j - 2] + 1);
      row_min = std::min(row_min, cur[j]);
    }
    // Every cell is at least the smaller of its row's and the previous row's minimum: once two rows
    // in a row exceed the bound, so does the distance.
    if (row_min > bound && previous_min > bound) return bound + 1;
    previous_min = row_min;
    std::swap(before, previous);
    std::swap(previous, current);
  }
  return std::min((*previous)[m], bound + 1);
}

// A name is a plausible typo of `length` characters within this many edits.
std::size_t plausible_edits(std::size_t length) {
  return std::max<std::size_t>(2, length / 3);
}

}  // namespace

std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> rows[3];
  const std::string x = lowered(a), y = lowered(b);
  return bounded_distance(x, y, std::max(x.size(), y.size()), rows);
}

NameIndex::Histogram NameIndex::histogram_of(std::string_view lowered) {
  Histogram histogram{};
  for (char c : lowered) {
    std::uint8_t& count = histogram[static_cast<unsigned char>(c) % histogram.size()];
    if (count < 255) ++count;
  }
  return histogram;
}

NameIndex::NameIndex(std::vector<std::string> names) : names_(std::move(names)) {
  entries_.reserve(names_.size());
  for (std::size_t i = 0; i < names_.size(); ++i) {
    std::string low = lowered(names_[i]);
    Histogram histogram = histogram_of(low);
    entries_.push_back({std::move(low), histogram, i});
  }
  std::stable_sort(entries_.begin(), entries_.end(),
                   [](const Entry& x, const Entry& y) { return x.lowered.size() < y.lowered.size(); });
}

std::vector<std::string> NameIndex::nearest(std::string_view unknown, std::size_t limit) const {
  const std::string key = lowered(unknown);
  const std::size_t bound = plausible_edits(key.size());
  const Histogram key_histogram = histogram_of(key);
  // Only names within `bound` of the key's length can be within `bound` edits.
  const std::size_t shortest = key.size() > bound ? key.size() - bound : 0;
  auto first = std::partition_point(entries_.begin(), entries_.end(),
                                    [&](const Entry& e) { return e.lowered.size() < shortest; });
  std::vector<std::pair<std::size_t, std::size_t>> scored;  // distance, index into names_
  std::vector<std::size_t> rows[3];
  for (auto it = first; it != entries_.end() && it->lowered.size() <= key.size() + bound; ++it) {
    // An edit changes the character counts by at most 2 (a swap by none): a cheap lower bound.
    std::size_t count_gap = 0;
    for (std::size_t b = 0; b < key_histogram.size(); ++b)
      count_gap += static_cast<std::size_t>(std::abs(int{key_histogram[b]} - int{it->histogram[b]}));
    if (count_gap > 2 * bound) continue;
    const std::size_t distance = bounded_distance(key, it->lowered, bound, rows);
    if (distance <= bound) scored.emplace_back(distance, it->index);
  }
  // Nearest first; among equals, in the order the names were given.
  std::sort(scored.begin(), scored.end());
  std::vector<std::string> result;
  for (const auto& [distance, index] : scored) {
    if (result.size() == limit) break;
    if (std::find(result.begin(), result.end(), names_[index]) == result.end()) result.push_back(names_[index]);
  }
  return result;
}

}  // namespace perfmon::events

namespace perfmon {

std::vector<std::string> nearest_names(std::string_view unknown, const std::vector<std::string>& candidates,
                                       std::size_t limit) {
  return events::NameIndex(candidates).nearest(unknown, limit);
}

std::string did_you_mean(const std::vector<std::string>& names) {
  if (names.empty()) return "";
  std::string text = "; did you mean ";
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (i > 0) text += i + 1 == names.size() ? " or " : ", ";
    text += "'" + names[i] + "'";
  }
  return text + "?";
}

}  // namespace perfmon
