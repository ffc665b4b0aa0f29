// SPDX-License-Identifier: Apache-2.0
// Collapsed stacks, the input of flamegraph.pl and speedscope: "comm;outer;...;leaf SAMPLES", each
// stack's number of samples as stackcollapse-perf.pl counts them.
#include <algorithm>
#include <map>

#include "perfmon/printable.hpp"
#include "present/report_rows.hpp"

namespace perfmon {

std::string format_folded_stacks(const Profile& profile, std::size_t event_index) {
  const EventProfile& event = profile.events().at(event_index);
  const std::vector<std::vector<std::uint32_t>> children = present::stack_children(profile, event);
  std::string out, path;
  // Depth first, names sorted at each level, without recursion (a stack can be thousands deep).
  std::vector<std::pair<std::uint32_t, std::size_t>> todo;  // a node, and its parent's path length
  for (auto it = children[0].rbegin(); it != children[0].rend(); ++it) todo.emplace_back(*it, 0);
  while (!todo.empty()) {
    const auto [node, parent_length] = todo.back();
    todo.pop_back();
    path.resize(parent_length);
    if (parent_length != 0) path += ';';
    std::string name = printable(profile.name(event.stacks[node].name));
    std::replace(name.begin(), name.end(), ';', ':');  // ';' separates frames
    path += name;
    if (event.stacks[node].self_samples != 0)
      out += path + ' ' + std::to_string(event.stacks[node].self_samples) + '\n';
    for (auto it = children[node].rbegin(); it != children[node].rend(); ++it) todo.emplace_back(*it, path.size());
  }
  return out;
}

std::string format_folded_stacks_diff(const Profile& base, std::size_t base_event, const Profile& now,
                                      std::size_t now_event) {
  // Each side's lines, "stack count", by stack.
  std::map<std::string, std::pair<std::string, std::string>> counts;
  auto take = [&](const std::string& folded, bool is_base) {
    std::size_t start = 0;
    while (start < folded.size()) {
      const std::size_t end = folded.find('\n', start);
      const std::string_view line = std::string_view(folded).substr(start, end - start);
      const std::size_t blank = line.rfind(' ');
      auto& [before, after] = counts[std::string(line.substr(0, blank))];
      (is_base ? before : after) = std::string(line.substr(blank + 1));
      start = end + 1;
    }
  };
  take(format_folded_stacks(base, base_event), true);
  take(format_folded_stacks(now, now_event), false);
  std::string out;
  for (const auto& [stack, both] : counts)
    out +=
        stack + ' ' + (both.first.empty() ? "0" : both.first) + ' ' + (both.second.empty() ? "0" : both.second) + '\n';
  return out;
}

namespace present {
std::string folded_stacks_shape(const Profile& profile, const ReportOptions&, const ReportView& view) {
  if (view.base != nullptr) return format_folded_stacks_diff(view.base->profile, view.base->event, profile, view.event);
  return format_folded_stacks(profile, view.event);
}
}  // namespace present

}  // namespace perfmon
