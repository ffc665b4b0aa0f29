#include "events/suggest.hpp"

#include <algorithm>
#include <cctype>
#include <numeric>

namespace perfmon::events {

std::size_t edit_distance(std::string_view a, std::string_view b) {
  auto lower = [](char c) { return static_cast<char>(std::tolower(static_cast<unsigned char>(c))); };
  const std::size_t n = a.size(), m = b.size();
  // Three rows suffice for the optimal-string-alignment distance.
  std::vector<std::size_t> before(m + 1), previous(m + 1), current(m + 1);
  std::iota(previous.begin(), previous.end(), 0);
  for (std::size_t i = 1; i <= n; ++i) {
    current[0] = i;
    for (std::size_t j = 1; j <= m; ++j) {
      std::size_t cost = lower(a[i - 1]) == lower(b[j - 1]) ? 0 : 1;
      current[j] = std::min({previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost});
      if (i > 1 && j > 1 && lower(a[i - 1]) == lower(b[j - 2]) && lower(a[i - 2]) == lower(b[j - 1]))
        current[j] = std::min(current[j], before[j - 2] + 1);
    }
    std::swap(before, previous);
    std::swap(previous, current);
  }
  return previous[m];
}

std::vector<std::string> nearest_names(std::string_view unknown, const std::vector<std::string>& candidates,
                                       std::size_t limit) {
  const std::size_t threshold = std::max<std::size_t>(2, unknown.size() / 3);
  std::vector<std::pair<std::size_t, const std::string*>> scored;
  for (const std::string& candidate : candidates) {
    // Cheap length filter first: the distance is at least the length difference.
    std::size_t gap =
        candidate.size() > unknown.size() ? candidate.size() - unknown.size() : unknown.size() - candidate.size();
    if (gap > threshold) continue;
    std::size_t distance = edit_distance(unknown, candidate);
    if (distance <= threshold) scored.emplace_back(distance, &candidate);
  }
  std::stable_sort(scored.begin(), scored.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
  std::vector<std::string> result;
  for (const auto& [distance, name] : scored) {
    if (result.size() == limit) break;
    if (std::find(result.begin(), result.end(), *name) == result.end()) result.push_back(*name);
  }
  return result;
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

}  // namespace perfmon::events
