// SPDX-License-Identifier: Apache-2.0
#include "present/report_rows.hpp"

#include <algorithm>
#include <array>
#include <map>
#include <tuple>
#include <utility>

#include "perfmon/address_space.hpp"
#include "profiles/entry_key.hpp"

namespace perfmon::present {

namespace {
constexpr std::uint32_t kNoRow = ~std::uint32_t{0};
}  // namespace

std::vector<ReportRow> report_rows(const Profile& profile, const EventProfile& event, const ReportOptions& options) {
  auto wanted = [&](ReportKey key) {
    return std::find(options.sort.begin(), options.sort.end(), key) != options.sort.end();
  };
  const bool by_command = wanted(ReportKey::Command), by_dso = wanted(ReportKey::Dso),
             by_symbol = wanted(ReportKey::Symbol), by_source = wanted(ReportKey::SourceLine);
  auto row_key = [&](const ProfileEntry& entry) {
    analysis::EntryKey key;
    if (by_command) key.command = entry.command;
    if (by_dso) key.dso = entry.dso;
    if (by_symbol) {
      key.symbol = entry.symbol;
      key.kernel = entry.kernel;
    }
    if (by_source) key.source = entry.source;
    return key;
  };

  // --comms, --dsos, --symbols: an entry outside them is no row's, and its stacks no chain's.
  auto listed = [](const std::vector<std::string>& names, std::string_view name) {
    return names.empty() || std::find(names.begin(), names.end(), name) != names.end();
  };
  auto shown = [&](const ProfileEntry& entry) {
    const std::string_view dso = profile.name(entry.dso);
    return listed(options.only_commands, profile.name(entry.command)) &&
           (listed(options.only_dsos, dso) || listed(options.only_dsos, dso_short_name(dso))) &&
           listed(options.only_symbols, profile.name(entry.symbol));
  };
  std::vector<bool> kept(event.entries.size(), true);
  for (std::size_t e = 0; e < event.entries.size(); ++e) kept[e] = shown(event.entries[e]);

  // Rows are counted first and made at once: a profile of a row per address has a hundred
  // thousand, and a vector grown by doubling would hold them twice while it moves them.
  analysis::FlatIndex<analysis::EntryKey, analysis::EntryKeyHash> row_of;
  std::vector<std::uint32_t> row_of_entry(event.entries.size());
  std::uint32_t row_count = 0;
  for (std::size_t e = 0; e < event.entries.size(); ++e) {
    if (!kept[e]) continue;
    auto [row, added] = row_of.try_emplace(row_key(event.entries[e]), row_count);
    row_count += added;
    row_of_entry[e] = *row;
  }
  // --children: the functions that stacks pass through and that end none of them are rows too,
  // named by their frames (the function, its file, the side of the kernel).
  std::vector<ProfileEntry> frame_rows;
  std::vector<std::uint32_t> row_of_node;
  if (options.children) {
    row_of_node.assign(event.stacks.size(), kNoRow);
    // Each node's command node, in one pass: a parent comes before its children.
    std::vector<std::uint32_t> command_of(event.stacks.size(), 0);
    for (std::uint32_t n = 1; n < event.stacks.size(); ++n) {
      const StackNode& node = event.stacks[n];
      command_of[n] = node.parent == 0 ? n : command_of[node.parent];
      if (node.parent == 0 || node.inlined) continue;  // a command's node; a function inlined in its caller's row
      ProfileEntry frame;
      frame.command = event.stacks[command_of[n]].name;
      frame.dso = node.dso;
      frame.symbol = node.name;
      frame.kernel = node.kernel;
      if (!shown(frame)) continue;
      auto [row, added] = row_of.try_emplace(row_key(frame), row_count);
      if (added) {
        ++row_count;
        frame_rows.push_back(frame);
      }
      row_of_node[n] = *row;
    }
  }
  row_of = {};
  std::vector<ReportRow> rows(row_count);
  for (std::size_t f = 0; f < frame_rows.size(); ++f) {
    const analysis::EntryKey key = row_key(frame_rows[f]);
    ReportRow& row = rows[row_count - frame_rows.size() + f];
    row.key.command = key.command;
    row.key.dso = key.dso;
    row.key.symbol = key.symbol;
    row.key.kernel = key.kernel;
  }
  for (std::size_t e = 0; e < event.entries.size(); ++e) {
    if (!kept[e]) continue;
    const ProfileEntry& entry = event.entries[e];
    ReportRow& row = rows[row_of_entry[e]];
    const analysis::EntryKey key = row_key(entry);  // the same for every entry of the row
    row.key.command = key.command;
    row.key.dso = key.dso;
    row.key.symbol = key.symbol;
    row.key.source = key.source;
    row.key.kernel = key.kernel;
    row.samples += entry.samples;
    row.period += entry.period;
  }

  if (options.children) {
    // A stack adds its period to the row it ends in and to each other row it passes, once however
    // often it passes (a recursion), as perf's Children; --max-stack frames from the leaf.
    std::vector<std::uint32_t> passed;
    for (const StackEnd& end : event.ends) {
      // A filter leaves rows out, not stacks: a function's callees count wherever they are.
      passed.clear();
      if (kept[end.entry]) passed.push_back(row_of_entry[end.entry]);
      std::size_t depth = 1;
      for (std::uint32_t n = event.stacks[end.node].parent;
           event.stacks[n].parent != 0 && (options.max_stack == 0 || depth < options.max_stack);
           n = event.stacks[n].parent, ++depth)
        if (row_of_node[n] != kNoRow && std::find(passed.begin(), passed.end(), row_of_node[n]) == passed.end())
          passed.push_back(row_of_node[n]);
      for (std::uint32_t row : passed) rows[row].children_period += end.period;
    }
  }

  if (options.callchains) {
    // Where stacks end is a chain of the row of the entry they were charged to; chains of several
    // commands that pass the same functions are one when rows are not split by command.
    std::vector<std::map<std::vector<NameId>, std::uint64_t>> chains(rows.size());
    std::vector<NameId> frames;
    for (const StackEnd& end : event.ends) {
      if (!kept[end.entry]) continue;
      frames.clear();
      for (const StackNode* at = &event.stacks[end.node];
           at->parent != 0 && (options.max_stack == 0 || frames.size() < options.max_stack);
           at = &event.stacks[at->parent])
        frames.push_back(at->name);
      if (options.chain_order == ReportOptions::ChainOrder::Caller) std::reverse(frames.begin(), frames.end());
      chains[row_of_entry[end.entry]][frames] += end.period;
    }
    for (std::size_t r = 0; r < rows.size(); ++r) {
      for (auto& [frames, period] : chains[r])
        if (percent(period, event.period) >= options.chain_limit) rows[r].chains.push_back({frames, period});
      std::stable_sort(rows[r].chains.begin(), rows[r].chains.end(),
                       [](const ReportChain& a, const ReportChain& b) { return a.period > b.period; });
    }
  }

  // Largest first, rows of equal period in the order of their names. Each distinct name is
  // compared as text once, to rank it, and rows by their names' ranks: a profile of a row per
  // address has a hundred thousand rows, most of a sample or two, whose ties compared names as
  // text at every step of the sort.
  std::vector<NameId> named;
  named.reserve(rows.size() * 4);
  for (const ReportRow& row : rows)
    named.insert(named.end(), {row.key.command, row.key.dso, row.key.symbol, row.key.source});
  std::sort(named.begin(), named.end());
  named.erase(std::unique(named.begin(), named.end()), named.end());
  std::sort(named.begin(), named.end(), [&](NameId a, NameId b) { return profile.name(a) < profile.name(b); });
  analysis::FlatIndex<std::uint64_t, analysis::WordHash> rank_of;
  for (std::uint32_t rank = 0; rank < named.size(); ++rank) rank_of.try_emplace(named[rank], rank);
  // Files by the name the table shows, as perf compares them (then by their path).
  std::vector<NameId> files;
  files.reserve(rows.size());
  for (const ReportRow& row : rows) files.push_back(row.key.dso);
  std::sort(files.begin(), files.end());
  files.erase(std::unique(files.begin(), files.end()), files.end());
  std::sort(files.begin(), files.end(), [&](NameId a, NameId b) {
    const std::string_view path_a = profile.name(a), path_b = profile.name(b);
    return std::make_pair(dso_short_name(path_a), path_a) < std::make_pair(dso_short_name(path_b), path_b);
  });
  analysis::FlatIndex<std::uint64_t, analysis::WordHash> file_rank_of;
  for (std::uint32_t rank = 0; rank < files.size(); ++rank) file_rank_of.try_emplace(files[rank], rank);
  std::vector<std::array<std::uint32_t, 4>> ranks(rows.size());  // of command, dso, symbol, source
  for (std::size_t r = 0; r < rows.size(); ++r) {
    const ProfileEntry& key = rows[r].key;
    ranks[r] = {*rank_of.find(key.command), *file_rank_of.find(key.dso), *rank_of.find(key.symbol),
                *rank_of.find(key.source)};
  }
  std::vector<std::uint32_t> order(rows.size());
  for (std::uint32_t r = 0; r < order.size(); ++r) order[r] = r;
  std::sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
    if (options.children && rows[a].children_period != rows[b].children_period)
      return rows[a].children_period > rows[b].children_period;
    if (rows[a].period != rows[b].period) return rows[a].period > rows[b].period;
    return std::tie(ranks[a], rows[a].key.kernel) < std::tie(ranks[b], rows[b].key.kernel);
  });
  // Rows moved to their places in place, a cycle at a time.
  std::vector<std::uint32_t> place(rows.size());
  for (std::uint32_t at = 0; at < order.size(); ++at) place[order[at]] = at;
  for (std::uint32_t r = 0; r < rows.size(); ++r) {
    while (place[r] != r) {
      std::swap(rows[r], rows[place[r]]);
      std::swap(place[r], place[place[r]]);
    }
  }
  if (options.children)  // rows of frames that only filtered-out stacks pass
    std::erase_if(rows, [](const ReportRow& row) { return row.children_period == 0 && row.period == 0; });
  if (options.percent_limit > 0)
    std::erase_if(rows, [&](const ReportRow& row) {
      return percent(options.children ? row.children_period : row.period, event.period) < options.percent_limit;
    });
  return rows;
}

std::vector<std::vector<std::uint32_t>> stack_children(const Profile& profile, const EventProfile& event) {
  std::vector<std::vector<std::uint32_t>> children(event.stacks.size());
  for (std::uint32_t n = 1; n < event.stacks.size(); ++n) children[event.stacks[n].parent].push_back(n);
  for (auto& list : children)
    std::sort(list.begin(), list.end(), [&](std::uint32_t a, std::uint32_t b) {
      return profile.name(event.stacks[a].name) < profile.name(event.stacks[b].name);
    });
  return children;
}

}  // namespace perfmon::present
