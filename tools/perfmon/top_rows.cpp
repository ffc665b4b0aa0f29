// SPDX-License-Identifier: Apache-2.0
#include "top_rows.hpp"

#include <algorithm>
#include <tuple>

#include "perfmon/address_space.hpp"
#include "perfmon/printable.hpp"

namespace perfmon::cli {

namespace {
constexpr std::size_t kNoRow = ~std::size_t{0};
constexpr double kDecay = 7.0 / 8.0;  // perf top's

bool has(const std::vector<ReportKey>& keys, ReportKey key) {
  return std::find(keys.begin(), keys.end(), key) != keys.end();
}
}  // namespace

std::size_t TopRows::row_of(const std::string& command, const std::string& dso, const std::string& symbol,
                            bool kernel) {
  TopRow row;
  if (has(keys_, ReportKey::Command)) row.command = printable(command);
  if (has(keys_, ReportKey::Dso)) row.dso = printable(dso_short_name(dso));
  if (has(keys_, ReportKey::Symbol)) {
    row.symbol = printable(symbol);
    row.kernel = kernel;
  }
  const std::string key = row.command + '\0' + row.dso + '\0' + row.symbol + (row.kernel ? "k" : "u");
  auto [known, added] = row_of_key_.try_emplace(key, rows_.size());
  if (added) {
    row.index = rows_.size();
    rows_.push_back(std::move(row));
    if (stacks_.chains) chains_of_row_.emplace_back();
  }
  return known->second;
}

TopRefresh TopRows::refresh(const Profile& profile, std::size_t event) {
  event_ = event;
  for (TopRow& row : rows_) {
    row.weight *= kDecay;
    row.children_weight *= kDecay;
  }
  total_ *= kDecay;
  TopRefresh added;
  const EventProfile& events = profile.events().at(event);
  const std::vector<ProfileEntry>& entries = events.entries;
  for (std::size_t i = 0; i < entries.size(); ++i) {
    const ProfileEntry& entry = entries[i];
    if (i == row_of_entry_.size()) {
      row_of_entry_.push_back(row_of(std::string(profile.name(entry.command)), std::string(profile.name(entry.dso)),
                                     std::string(profile.name(entry.symbol)), entry.kernel));
      period_seen_.push_back(0);
      samples_seen_.push_back(0);
    }
    const std::uint64_t period = entry.period - period_seen_[i], samples = entry.samples - samples_seen_[i];
    period_seen_[i] = entry.period;
    samples_seen_[i] = entry.samples;
    TopRow& row = rows_[row_of_entry_[i]];
    row.weight += static_cast<double>(period);
    row.samples += samples;
    total_ += static_cast<double>(period);
    added.samples += samples;
    if (entry.kernel) added.kernel_samples += samples;
  }
  if (stacks_.chains) add_stacks(profile, events);
  return added;
}

void TopRows::add_stacks(const Profile& profile, const EventProfile& event) {
  // The rows of the functions stacks pass through, for nodes new since the last refresh (a parent
  // comes before its children, and nodes only grow).
  for (std::uint32_t n = static_cast<std::uint32_t>(row_of_node_.size()); n < event.stacks.size(); ++n) {
    const StackNode& node = event.stacks[n];
    command_of_node_.push_back(n == 0 || node.parent == 0 ? n : command_of_node_[node.parent]);
    if (n == 0 || node.parent == 0 || node.inlined) {  // the root, a command, a function inlined in its caller's row
      row_of_node_.push_back(kNoRow);
      continue;
    }
    row_of_node_.push_back(row_of(std::string(profile.name(event.stacks[command_of_node_[n]].name)),
                                  std::string(profile.name(node.dso)), std::string(profile.name(node.name)),
                                  node.kernel));
  }
  for (auto& chains : chains_of_row_)
    for (auto chain = chains.begin(); chain != chains.end();) {
      chain->second *= kDecay;
      // A chain decayed to nothing is let go: a long run does not keep every stack it ever saw.
      chain = chain->second < total_ * 1e-6 ? chains.erase(chain) : std::next(chain);
    }
  // A stack adds its new period to the row it ends in and to each other row it passes, once however
  // often it passes (a recursion), as report --children does; --max-stack frames from the leaf.
  std::vector<std::size_t> passed;
  for (std::size_t i = 0; i < event.ends.size(); ++i) {
    const StackEnd& end = event.ends[i];
    if (i == end_period_seen_.size()) end_period_seen_.push_back(0);
    const std::uint64_t period = end.period - end_period_seen_[i];
    end_period_seen_[i] = end.period;
    if (period == 0) continue;
    passed.assign(1, row_of_entry_[end.entry]);
    std::size_t depth = 1;
    for (std::uint32_t n = event.stacks[end.node].parent;
         event.stacks[n].parent != 0 && (stacks_.max_stack == 0 || depth < stacks_.max_stack);
         n = event.stacks[n].parent, ++depth)
      if (row_of_node_[n] != kNoRow && std::find(passed.begin(), passed.end(), row_of_node_[n]) == passed.end())
        passed.push_back(row_of_node_[n]);
    for (std::size_t row : passed) rows_[row].children_weight += static_cast<double>(period);
    chains_of_row_[row_of_entry_[end.entry]][end.node] += static_cast<double>(period);
  }
}

std::vector<TopRow> TopRows::rows(Order order, const std::string& dso) const {
  const bool children = shows_children();
  auto ranked = [children](const TopRow& row) { return children ? row.children_weight : row.weight; };
  std::vector<TopRow> shown;
  for (const TopRow& row : rows_)
    // Rows that would show 0.00% are gone, as perf top drops those its decay brought to nothing.
    if (total_ > 0 && ranked(row) / total_ >= 0.00005 && (dso.empty() || row.dso == dso)) shown.push_back(row);
  std::sort(shown.begin(), shown.end(), [order, &ranked](const TopRow& a, const TopRow& b) {
    switch (order) {
      case Order::Samples:
        return a.samples > b.samples;
      case Order::Name:
        return std::tie(a.symbol, a.dso, a.command) < std::tie(b.symbol, b.dso, b.command);
      case Order::Overhead:
        break;
    }
    if (ranked(a) != ranked(b)) return ranked(a) > ranked(b);
    if (a.weight != b.weight) return a.weight > b.weight;
    return std::tie(a.symbol, a.dso, a.command) < std::tie(b.symbol, b.dso, b.command);
  });
  return shown;
}

std::vector<TopChain> TopRows::chains(const Profile& profile, const TopRow& row, double least_share) const {
  if (!stacks_.chains || row.index >= chains_of_row_.size()) return {};
  const std::vector<StackNode>& nodes = profile.events().at(event_).stacks;
  // Stacks of several commands that pass the same functions are one chain when rows are not split
  // by command.
  std::map<std::vector<NameId>, double> merged;
  std::vector<NameId> frames;
  for (const auto& [node, weight] : chains_of_row_[row.index]) {
    frames.clear();
    for (std::uint32_t n = node; nodes[n].parent != 0 && (stacks_.max_stack == 0 || frames.size() < stacks_.max_stack);
         n = nodes[n].parent)
      frames.push_back(nodes[n].name);
    merged[frames] += weight;
  }
  std::vector<TopChain> chains;
  for (auto& [chain_frames, weight] : merged)
    if (total_ > 0 && weight / total_ >= least_share) chains.push_back({chain_frames, weight});
  std::stable_sort(chains.begin(), chains.end(),
                   [](const TopChain& a, const TopChain& b) { return a.weight > b.weight; });
  return chains;
}

}  // namespace perfmon::cli
