// SPDX-License-Identifier: Apache-2.0
// perf stat --metric-only's shape: the metrics alone, a column each headed by its unit and name,
// a line per part of the measurement (its prefix: CPU, thread, set) with their values beneath.
#include <algorithm>
#include <nlohmann/json.hpp>

#include "present/shapes.hpp"
#include "present/stat_cells.hpp"

namespace perfmon::present {

namespace {

struct MetricColumns {
  std::vector<std::string> headings;            // each metric's unit and name, in the order first met
  std::vector<const StatRow*> parts;            // each part's first row with a metric (its prefix)
  std::vector<std::vector<std::string>> cells;  // by part, by heading: the value, or "" where none
};

// A column's heading: the metric's unit and name (-M's); perf's rates per second, which carry a
// unit alone, with their event's name.
std::string heading_of(const StatRow& row) {
  return !row.metric_only && row.metric_unit.ends_with("/sec") ? row.event + " " + row.metric_unit : row.metric_unit;
}

MetricColumns metric_columns(const std::vector<StatRow>& rows) {
  MetricColumns columns;
  for (const StatRow& row : rows)
    if (row.metric &&
        std::find(columns.headings.begin(), columns.headings.end(), heading_of(row)) == columns.headings.end())
      columns.headings.push_back(heading_of(row));
  std::vector<std::pair<std::string, std::string>> seen;  // prefix and region of each part
  for (const StatRow& row : rows) {
    if (!row.metric) continue;
    const auto part = std::pair{row.prefix, row.region};
    auto found = std::find(seen.begin(), seen.end(), part);
    if (found == seen.end()) {
      seen.push_back(part);
      columns.parts.push_back(&row);
      columns.cells.emplace_back(columns.headings.size());
      found = seen.end() - 1;
    }
    const std::size_t column =
        std::find(columns.headings.begin(), columns.headings.end(), heading_of(row)) - columns.headings.begin();
    columns.cells[found - seen.begin()][column] = format_text("%.3f", *row.metric);
  }
  return columns;
}

std::string part_label(const StatRow& row) {
  return row.prefix + (row.region.empty() ? "" : (row.prefix.empty() ? "" : " ") + row.region);
}

}  // namespace

std::string metric_only_table(const std::vector<StatRow>& rows, const std::string& lead, bool print_header) {
  const MetricColumns columns = metric_columns(rows);
  std::vector<std::size_t> widths;
  for (std::size_t c = 0; c < columns.headings.size(); ++c) {
    std::size_t width = std::max<std::size_t>(columns.headings[c].size(), 10);
    for (const auto& cells : columns.cells) width = std::max(width, cells[c].size());
    widths.push_back(width);
  }
  std::size_t label_width = 0;
  for (const StatRow* part : columns.parts) label_width = std::max(label_width, part_label(*part).size());
  auto line = [&](const std::string& first, const std::string& label, const std::vector<std::string>& cells) {
    std::string text = first + (label_width ? format_text("%-*s", static_cast<int>(label_width), label.c_str()) : "");
    for (std::size_t c = 0; c < cells.size(); ++c)
      text += "  " + format_text("%*s", static_cast<int>(widths[c]), cells[c].c_str());
    while (!text.empty() && text.back() == ' ') text.pop_back();
    return text + "\n";
  };
  std::string out;
  if (print_header) out += line(std::string(lead.size(), ' '), "", columns.headings);
  for (std::size_t p = 0; p < columns.parts.size(); ++p)
    out += line(lead, part_label(*columns.parts[p]), columns.cells[p]);
  return out;
}

std::string metric_only_csv(const std::vector<StatRow>& rows, const std::string& separator, const std::string& lead,
                            bool print_header) {
  const MetricColumns columns = metric_columns(rows);
  const bool labelled = std::any_of(columns.parts.begin(), columns.parts.end(),
                                    [](const StatRow* part) { return !part_label(*part).empty(); });
  auto joined = [&](const std::string& label, const std::vector<std::string>& fields) {
    std::string text = labelled ? label : "";
    for (std::size_t f = 0; f < fields.size(); ++f) text += (f == 0 && !labelled ? "" : separator) + fields[f];
    return text + "\n";
  };
  std::string out;
  if (print_header) out += (lead.empty() ? "" : "time" + separator) + joined("", columns.headings);
  for (std::size_t p = 0; p < columns.parts.size(); ++p)
    out += lead + joined(part_label(*columns.parts[p]), columns.cells[p]);
  return out;
}

std::string metric_only_json(const std::vector<StatRow>& rows, const double* interval_s) {
  const MetricColumns columns = metric_columns(rows);
  std::string out;
  for (std::size_t p = 0; p < columns.parts.size(); ++p) {
    nlohmann::ordered_json line;
    if (interval_s != nullptr) line["interval"] = *interval_s;
    // The part as stat's JSON names it: "cpu", "thread", or its kind ("set", "pass").
    const StatRow& part = *columns.parts[p];
    if (!part.prefix_kind.empty() && part.prefix.starts_with(part.prefix_kind))
      line[part.prefix_kind] = part.prefix.substr(part.prefix_kind.size());
    else if (part.prefix.starts_with("CPU"))
      line["cpu"] = part.prefix.substr(3);
    else if (!part.prefix.empty())
      line["thread"] = part.prefix;
    if (!columns.parts[p]->region.empty()) line["region"] = columns.parts[p]->region;
    for (std::size_t c = 0; c < columns.headings.size(); ++c)
      if (!columns.cells[p][c].empty()) line[columns.headings[c]] = columns.cells[p][c];
    out += line.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n";
  }
  return out;
}

}  // namespace perfmon::present
