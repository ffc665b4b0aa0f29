// Collapsed stacks, the input of flamegraph.pl and speedscope: "comm;outer;...;leaf SAMPLES", each
// stack's number of samples as stackcollapse-perf.pl counts them.
#include <algorithm>

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

namespace present {
std::string folded_stacks_shape(const Profile& profile, const ReportOptions&, const ReportView& view) {
  return format_folded_stacks(profile, view.event);
}
}  // namespace present

}  // namespace perfmon
