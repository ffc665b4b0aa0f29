// SPDX-License-Identifier: Apache-2.0
// perf diff's figures and its --stdio table (perf 6.1: the default delta-abs computation).
#include "perfmon/report_diff.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>

#include "perfmon/address_space.hpp"
#include "perfmon/error.hpp"
#include "perfmon/printable.hpp"
#include "present/report_rows.hpp"

namespace perfmon {

std::optional<double> DiffRow::delta() const {
  if (!now) return std::nullopt;
  return *now - baseline.value_or(0.0);
}

std::optional<double> DiffRow::ratio() const {
  if (base_period == 0 || new_period == 0) return std::nullopt;
  return static_cast<double>(new_period) / static_cast<double>(base_period);
}

std::optional<double> DiffRow::weighted_diff(std::int64_t base_weight, std::int64_t new_weight) const {
  if (base_period == 0 || new_period == 0) return std::nullopt;
  return static_cast<double>(new_period) * static_cast<double>(new_weight) -
         static_cast<double>(base_period) * static_cast<double>(base_weight);
}

void parse_diff_compute(const std::string& text, DiffOptions& options) {
  using Compute = DiffOptions::Compute;
  if (text == "delta-abs") {
    options.compute = Compute::DeltaAbs;
  } else if (text == "delta") {
    options.compute = Compute::Delta;
  } else if (text == "ratio") {
    options.compute = Compute::Ratio;
  } else if (text.starts_with("wdiff:")) {
    long long base = 0, now = 0;
    int used = 0;
    if (std::sscanf(text.c_str() + 6, "%lld,%lld%n", &base, &now, &used) != 2 || text.size() != 6 + std::size_t(used))
      throw Error(ErrorKind::InvalidArgument,
                  "wdiff takes two whole weights, the base's and the new file's, such as 'wdiff:1,2'; not '" +
                      printable(text) + "'.");
    options.compute = Compute::WeightedDiff;
    options.base_weight = base;
    options.new_weight = now;
  } else {
    throw Error(ErrorKind::InvalidArgument,
                "-c takes delta-abs, delta, ratio or wdiff:W1,W2; not '" + printable(text) + "'.");
  }
}

namespace {

// The figure rows are compared by, as options.compute says.
std::optional<double> compared(const DiffRow& row, const DiffOptions& options) {
  switch (options.compute) {
    case DiffOptions::Compute::DeltaAbs: {
      const std::optional<double> delta = row.delta();
      return delta ? std::optional<double>(std::fabs(*delta)) : std::nullopt;
    }
    case DiffOptions::Compute::Delta:
      return row.delta();
    case DiffOptions::Compute::Ratio:
      return row.ratio();
    case DiffOptions::Compute::WeightedDiff:
      return row.weighted_diff(options.base_weight, options.new_weight);
  }
  return std::nullopt;
}

bool has(const DiffOptions& options, ReportKey key) {
  return std::find(options.sort.begin(), options.sort.end(), key) != options.sort.end();
}

// Whether a symbol is an address without a name ("0x" and 16 hex digits, as the profile makes them).
bool unnamed(std::string_view symbol) {
  return symbol.size() == 18 && symbol.starts_with("0x") &&
         symbol.find_first_not_of("0123456789abcdef", 2) == std::string_view::npos;
}

// The rows of one event of a profile, keyed by their text (names are per profile). As in perf diff,
// a file's addresses without a name are one row, shown by the first of them the samples met (rows
// per address would be a stripped program's every instruction, unpaired between two runs).
void add_rows(const Profile& profile, const EventProfile& event, const DiffOptions& options, bool base,
              std::map<std::string, std::size_t>& index, std::vector<DiffRow>& rows) {
  for (const ProfileEntry& entry : event.entries) {  // in the order first seen
    DiffRow keys;
    if (has(options, ReportKey::Command)) keys.command = printable(profile.name(entry.command));
    if (has(options, ReportKey::Dso)) keys.dso = printable(dso_short_name(profile.name(entry.dso)));
    bool without_name = false;
    if (has(options, ReportKey::Symbol)) {
      keys.symbol = printable(profile.name(entry.symbol));
      keys.kernel = entry.kernel;
      without_name = unnamed(keys.symbol);
    }
    const std::string key = keys.command + '\0' + keys.dso + '\0' + (without_name ? "" : keys.symbol) +
                            (without_name  ? "\3"
                             : keys.kernel ? "\1"
                                           : "\2");
    auto [at, added] = index.try_emplace(key, rows.size());
    if (added) rows.push_back(std::move(keys));
    DiffRow& into = rows[at->second];
    (base ? into.base_period : into.new_period) += entry.period;
  }
}

}  // namespace

std::vector<DiffRow> diff_rows(const Profile& base, std::size_t base_event, const Profile& now, std::size_t now_event,
                               const DiffOptions& options) {
  std::map<std::string, std::size_t> index;
  std::vector<DiffRow> rows;
  const EventProfile& before = base.events().at(base_event);
  const EventProfile& after = now.events().at(now_event);
  add_rows(base, before, options, true, index, rows);
  add_rows(now, after, options, false, index, rows);
  for (DiffRow& row : rows) {
    if (row.base_period != 0) row.baseline = present::percent(row.base_period, before.period);
    if (row.new_period != 0) row.now = present::percent(row.new_period, after.period);
  }
  std::stable_sort(rows.begin(), rows.end(), [&](const DiffRow& a, const DiffRow& b) {
    const std::optional<double> da = compared(a, options), db = compared(b, options);
    if (da.has_value() != db.has_value()) return da.has_value();           // rows not compared last,
    if (a.now.has_value() != b.now.has_value()) return a.now.has_value();  // those of the base only after all
    if (da && *da != *db) return *da > *db;
    if (a.baseline.value_or(0) != b.baseline.value_or(0)) return a.baseline.value_or(0) > b.baseline.value_or(0);
    return std::tie(a.command, a.dso, a.symbol) < std::tie(b.command, b.dso, b.symbol);
  });
  return rows;
}

namespace {

// The events both profiles have by name: (base index, new index); and the names of the rest.
std::vector<std::pair<std::size_t, std::size_t>> shared_events(const Profile& base, const Profile& now,
                                                               std::vector<std::string>& unpaired) {
  std::vector<std::pair<std::size_t, std::size_t>> pairs;
  const std::vector<EventProfile>& before = base.events();
  const std::vector<EventProfile>& after = now.events();
  for (std::size_t n = 0; n < after.size(); ++n) {
    if (after[n].samples == 0) continue;
    auto found = std::find_if(before.begin(), before.end(),
                              [&](const EventProfile& event) { return event.name == after[n].name; });
    if (found == before.end() || found->samples == 0)
      unpaired.push_back(after[n].name);
    else
      pairs.emplace_back(static_cast<std::size_t>(found - before.begin()), n);
  }
  for (const EventProfile& event : before)
    if (event.samples != 0 && std::none_of(after.begin(), after.end(), [&](const EventProfile& other) {
          return other.name == event.name && other.samples != 0;
        }))
      unpaired.push_back(event.name);
  return pairs;
}

void pad(std::string& out, const std::string& text, std::size_t width) {
  out += text;
  out.append(width > text.size() ? width - text.size() : 0, ' ');
}

}  // namespace

std::string format_diff_table(const Profile& base, const Profile& now, const DiffOptions& options) {
  std::vector<std::string> unpaired;
  std::string out;
  for (const auto& [b, n] : shared_events(base, now, unpaired)) {
    const std::vector<DiffRow> rows = diff_rows(base, b, now, n, options);
    struct Column {
      const char* title;
      ReportKey key;
      std::size_t width;
    };
    std::vector<Column> columns;
    for (ReportKey key : options.sort) {
      if (key == ReportKey::SourceLine) continue;
      Column column{key == ReportKey::Command ? "Command" : key == ReportKey::Dso ? "Shared Object" : "Symbol", key, 0};
      column.width = std::string(column.title).size();
      for (const DiffRow& row : rows)
        column.width = std::max(column.width, key == ReportKey::Command ? row.command.size()
                                              : key == ReportKey::Dso   ? row.dso.size()
                                                                        : row.symbol.size() + 4);
      columns.push_back(column);
    }
    if (!out.empty()) out += "\n";  // between events
    out += "# Event '" + printable(now.events()[n].name) + "'\n#\n";
    // The compared column's title, and its cell: printf's format of the figure and its width.
    using Compute = DiffOptions::Compute;
    const Compute compute = options.compute;
    const char* title = compute == Compute::DeltaAbs ? "Delta Abs"
                        : compute == Compute::Delta  ? "Delta"
                        : compute == Compute::Ratio  ? "Ratio"
                                                     : "Weighted diff";
    const int width = compute == Compute::DeltaAbs ? 9 : compute == Compute::Delta ? 7 : 14;
    std::string titles = "# Baseline", dots = "# ........";
    char head[64];
    if (options.periods) {
      std::snprintf(head, sizeof head, "  %14s", "Base period");
      titles += head;
      dots += "  " + std::string(14, '.');
    }
    std::snprintf(head, sizeof head, "  %*s", width, title);
    titles += head;
    dots += "  " + std::string(static_cast<std::size_t>(width), '.');
    if (options.periods) {
      std::snprintf(head, sizeof head, "  %14s", "Period");
      titles += head;
      dots += "  " + std::string(14, '.');
    }
    for (std::size_t c = 0; c < columns.size(); ++c) {
      titles += "  ";
      dots += "  ";
      pad(titles, columns[c].title, c + 1 == columns.size() ? 0 : columns[c].width);
      dots.append(columns[c].width, '.');
    }
    out += titles + "\n" + dots + "\n#\n";
    char cell[32];
    for (const DiffRow& row : rows) {
      if (row.baseline)
        std::snprintf(cell, sizeof cell, "%9.2f%%", *row.baseline);
      else
        std::snprintf(cell, sizeof cell, "%10s", "");
      out += cell;
      if (options.periods) {
        std::snprintf(cell, sizeof cell, "  %14llu", static_cast<unsigned long long>(row.base_period));
        out += cell;
      }
      const std::optional<double> figure =
          compute == Compute::DeltaAbs || compute == Compute::Delta ? row.delta() : compared(row, options);
      if (!figure)  // blank for a row of the base only; N/A where only the new file has it
        std::snprintf(cell, sizeof cell, "  %*s", width,
                      row.now && (compute == Compute::Ratio || compute == Compute::WeightedDiff) ? "N/A" : "");
      else if (compute == Compute::Ratio)
        std::snprintf(cell, sizeof cell, "  %*.6f", width, *figure);
      else if (compute == Compute::WeightedDiff)
        std::snprintf(cell, sizeof cell, "  %*.0f", width, *figure);
      else
        std::snprintf(cell, sizeof cell, "  %+*.2f%%", width - 1, *figure);
      out += cell;
      if (options.periods) {
        if (row.now)
          std::snprintf(cell, sizeof cell, "  %14llu", static_cast<unsigned long long>(row.new_period));
        else
          std::snprintf(cell, sizeof cell, "  %14s", "");
        out += cell;
      }
      for (std::size_t c = 0; c < columns.size(); ++c) {
        out += "  ";
        const std::string text = columns[c].key == ReportKey::Command ? row.command
                                 : columns[c].key == ReportKey::Dso
                                     ? row.dso
                                     : std::string(row.kernel ? "[k] " : "[.] ") + row.symbol;
        pad(out, text, c + 1 == columns.size() ? 0 : columns[c].width);
      }
      while (!out.empty() && out.back() == ' ') out.pop_back();
      out += "\n";
    }
  }
  for (const std::string& name : unpaired)
    out += "# Event '" + printable(name) + "' is in one file only: not compared.\n";
  return out;
}

std::string format_diff_json(const Profile& base, const Profile& now, const DiffOptions& options) {
  std::vector<std::string> unpaired;
  nlohmann::ordered_json document;
  document["events"] = nlohmann::ordered_json::array();
  for (const auto& [b, n] : shared_events(base, now, unpaired)) {
    nlohmann::ordered_json event;
    event["event"] = now.events()[n].name;
    event["base_period"] = base.events()[b].period;
    event["new_period"] = now.events()[n].period;
    event["rows"] = nlohmann::ordered_json::array();
    for (const DiffRow& row : diff_rows(base, b, now, n, options)) {
      nlohmann::ordered_json line;
      if (has(options, ReportKey::Command)) line["comm"] = row.command;
      if (has(options, ReportKey::Dso)) line["dso"] = row.dso;
      if (has(options, ReportKey::Symbol)) {
        line["symbol"] = row.symbol;
        line["kernel"] = row.kernel;
      }
      line["baseline"] = row.baseline ? nlohmann::ordered_json(*row.baseline) : nlohmann::ordered_json(nullptr);
      line["new"] = row.now ? nlohmann::ordered_json(*row.now) : nlohmann::ordered_json(nullptr);
      const std::optional<double> delta = row.delta();
      line["delta"] = delta ? nlohmann::ordered_json(*delta) : nlohmann::ordered_json(nullptr);
      const std::optional<double> ratio = row.ratio();
      line["ratio"] = ratio ? nlohmann::ordered_json(*ratio) : nlohmann::ordered_json(nullptr);
      if (options.compute == DiffOptions::Compute::WeightedDiff) {
        const std::optional<double> weighted = row.weighted_diff(options.base_weight, options.new_weight);
        line["weighted_diff"] = weighted ? nlohmann::ordered_json(*weighted) : nlohmann::ordered_json(nullptr);
      }
      line["base_period"] = row.base_period;
      line["new_period"] = row.new_period;
      event["rows"].push_back(std::move(line));
    }
    document["events"].push_back(std::move(event));
  }
  document["not_compared"] = unpaired;
  return document.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n";
}

}  // namespace perfmon
