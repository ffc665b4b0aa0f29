#include "present/shapes.hpp"
#include "present/stat_cells.hpp"

namespace perfmon::present {

std::string csv_rows(const std::vector<StatRow>& rows, const std::string& sep, const std::string& lead) {
  std::string out;
  for (const StatRow& row : rows) {
    std::string line = lead;
    if (!row.prefix.empty()) line += row.prefix + sep;
    if (!row.region.empty()) line += row.region + sep;
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
