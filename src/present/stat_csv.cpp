// SPDX-License-Identifier: Apache-2.0
#include "perfmon/printable.hpp"
#include "present/shapes.hpp"
#include "present/stat_cells.hpp"

namespace perfmon::present {

namespace {

// A region's name is the user's own text: shown printable, and quoted where it holds the separator
// or a quote (a double quote doubled), as CSV readers take a field, so that its row keeps its columns.
std::string region_field(const std::string& region, const std::string& sep) {
  const std::string shown = printable(region);
  if (shown.find(sep) == std::string::npos && shown.find('"') == std::string::npos) return shown;
  std::string quoted = "\"";
  for (const char c : shown) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
  return quoted + "\"";
}

}  // namespace

std::string csv_rows(const std::vector<StatRow>& rows, const std::string& sep, const std::string& lead) {
  std::string out;
  for (const StatRow& row : rows) {
    std::string line = lead;
    if (!row.prefix.empty()) line += row.prefix + sep;
    if (row.aggregated_cpus != 0) line += std::to_string(row.aggregated_cpus) + sep;  // perf's CPUs summed
    if (!row.region.empty()) line += region_field(row.region, sep) + sep;
    if (row.metric_only) {  // perf's metric line: the count's fields empty
      out += line + sep + sep + sep + sep + sep + format_text("%.3f", row.metric.value_or(0.0)) + sep +
             row.metric_unit + "\n";
      continue;
    }
    line += value_text(row, false) + sep + row.unit + sep + row.event + sep;
    line += std::to_string(event_runtime(row)) + sep;
    line += format_text("%.2f", running_percent(row));
    if (std::optional<double> spread = variance_percent(row)) line += sep + format_text("%.2f%%", *spread);
    line += sep + (row.metric ? format_text("%.3f", *row.metric) : "") + sep + row.metric_unit;
    if (row.emulated) line += sep + "emulated";  // after perf's fields, which keep their places
    out += line + "\n";
  }
  return out;
}

}  // namespace perfmon::present
