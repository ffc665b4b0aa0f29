// SPDX-License-Identifier: Apache-2.0
#include "perfmon/stat_output.hpp"

#include "present/shapes.hpp"
#include "present/stat_cells.hpp"

namespace perfmon {

std::string format_stat_report(const StatReport& report, StatFormat format, const std::string& separator) {
  if (report.metric_only && format == StatFormat::Csv)
    return present::metric_only_csv(report.rows, separator, "", true);
  if (report.metric_only && format == StatFormat::Json) return present::metric_only_json(report.rows, nullptr);
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
                                 const std::string& separator, bool print_header, bool metric_only) {
  if (metric_only) {
    switch (format) {
      case StatFormat::Csv:
        return present::metric_only_csv(rows, separator, present::format_text("%16.9f", timestamp_s) + separator,
                                        print_header);
      case StatFormat::Json:
        return present::metric_only_json(rows, &timestamp_s);
      case StatFormat::Table:
        return present::metric_only_table(rows, present::format_text("%16.9f ", timestamp_s), print_header);
    }
  }
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
