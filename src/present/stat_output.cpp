// SPDX-License-Identifier: Apache-2.0
#include "perfmon/stat_output.hpp"

#include "present/shapes.hpp"
#include "present/stat_cells.hpp"

namespace perfmon {

std::string format_stat_report(const StatReport& report, StatFormat format, const std::string& separator) {
  switch (format) {
    case StatFormat::Csv:
      return present::csv_rows(report.rows, separator, "");
    case StatFormat::Json:
      return present::json_rows(report.rows, nullptr);
    case StatFormat::Table:
      break;
  }
  return present::table_report(report);
}

std::string format_stat_interval(const std::vector<StatRow>& rows, double timestamp_s, StatFormat format,
                                 const std::string& separator, bool print_header) {
  switch (format) {
    case StatFormat::Csv:
      return present::csv_rows(rows, separator, present::format_text("%16.9f", timestamp_s) + separator);
    case StatFormat::Json:
      return present::json_rows(rows, &timestamp_s);
    case StatFormat::Table:
      break;
  }
  return present::table_interval(rows, timestamp_s, print_header);
}

}  // namespace perfmon
