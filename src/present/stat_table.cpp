// SPDX-License-Identifier: Apache-2.0
#include <cstdlib>
#include "perfmon/printable.hpp"
#include "present/shapes.hpp"
#include "present/stat_cells.hpp"

namespace perfmon::present {

namespace {

std::string table_line(const StatRow& row, const std::string& lead) {
  std::string line = lead;
  if (!row.prefix.empty()) line += format_text("%-12s ", row.prefix.c_str());
  if (row.aggregated_cpus != 0) line += format_text("%4d ", row.aggregated_cpus);  // perf's CPUs summed
  if (!row.region.empty()) line += format_text("%-12s ", printable(row.region).c_str());
  if (row.metric_only)  // a metric beside no count of its own: under the counts' columns, blanks
    line += format_text("%18s %-4s %-32s", "", "", "");
  else
    line += format_text("%18s %-4s %-32s", value_text(row, true).c_str(), row.unit.c_str(), row.event.c_str());
  if (row.metric) line += format_text(" # %8.3f %-23s", *row.metric, row.metric_unit.c_str());
  if (row.metric_only) {
    while (!line.empty() && line.back() == ' ') line.pop_back();
    return line + "\n";
  }
  if (std::optional<double> spread = variance_percent(row)) line += format_text("  ( +- %5.2f%% )", *spread);
  if (row.state == StatRow::State::Counted && row.value.running < row.value.enabled)
    line += format_text("  (%.2f%%)", running_percent(row));
  if (row.emulated) line += "  (emulated)";
  while (!line.empty() && line.back() == ' ') line.pop_back();
  return line + "\n";
}

std::string table_rows(const std::vector<StatRow>& rows, const std::string& lead) {
  std::string out;
  for (const StatRow& row : rows) out += table_line(row, lead);
  return out;
}

}  // namespace

std::string table_report(const StatReport& report) {
  std::string out = "\n Performance counter stats for " + report.target;
  if (report.runs > 1) out += " (" + std::to_string(report.runs) + " runs)";
  out += ":\n\n";
  // A null run (perf stat -n) has no rows, and no blank line after them.
  if (report.metric_only)
    out += metric_only_table(report.rows, "", true) + "\n";
  else if (!report.rows.empty())
    out += table_rows(report.rows, "") + "\n";
  if (report.runs > 1) {
    if (report.run_table) {  // perf's print_table: each run and its distance from the mean, a # per 5%
      const double mean = report.elapsed_ns / 1e9;
      const std::string indent(format_text(" %17.6f", mean).find_first_not_of(' '), ' ');
      out += indent + "# Table of individual measurements:\n";
      for (const double run_ns : report.run_elapsed_ns) {
        const double run = run_ns / 1e9;
        out += format_text(" %17.6f (%+.6f) ", run, run - mean);
        out.append(1 + static_cast<std::size_t>(std::abs(static_cast<int>(100.0 * (run - mean) / run) / 5)), '#');
        out += "\n";
      }
      out += "\n" + indent + "# Final result:\n";
    }
    out += format_text("%18.6f +- %.6f seconds time elapsed", report.elapsed_ns / 1e9, report.elapsed_stddev_ns / 1e9);
    if (report.elapsed_rel_stddev) out += format_text("  ( +- %5.2f%% )", *report.elapsed_rel_stddev);
    out += "\n";
  } else {
    out += format_text("%18.9f seconds time elapsed\n", report.elapsed_ns / 1e9);
  }
  if (report.user_s && report.sys_s && report.runs == 1) {
    out += format_text("\n%18.9f seconds user\n", *report.user_s);
    out += format_text("%18.9f seconds sys\n", *report.sys_s);
  }
  out += "\n";
  for (const std::string& note : report.footnotes) out += note + "\n";
  return out;
}

std::string table_interval(const std::vector<StatRow>& rows, double timestamp_s, bool print_header) {
  std::string out = print_header ? "#           time             counts unit events\n" : "";
  return out + table_rows(rows, format_text("%16.9f ", timestamp_s));
}

}  // namespace perfmon::present
