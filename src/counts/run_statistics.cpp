// SPDX-License-Identifier: Apache-2.0
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "perfmon/stat.hpp"

namespace perfmon {

RunStats run_stats(const std::vector<double>& samples) {
  RunStats stats;
  if (samples.empty()) return stats;
  double n = static_cast<double>(samples.size());
  for (double sample : samples) stats.mean += sample;
  stats.mean /= n;
  if (samples.size() > 1) {
    double variance = 0;
    for (double sample : samples) variance += (sample - stats.mean) * (sample - stats.mean);
    variance /= n - 1;
    stats.stddev_of_mean = std::sqrt(variance / n);
  }
  stats.rel_stddev = stats.mean != 0 ? 100.0 * stats.stddev_of_mean / stats.mean : 0.0;
  return stats;
}

StatReport summarise_runs(const std::vector<StatRun>& runs, std::string target, std::vector<std::string> footnotes) {
  StatReport report;
  report.target = std::move(target);
  report.footnotes = std::move(footnotes);
  if (runs.empty()) return report;
  report.runs = static_cast<int>(runs.size());
  report.rows = runs.back().rows;
  std::vector<double> elapsed;
  for (const StatRun& run : runs) elapsed.push_back(run.elapsed_ns);
  RunStats time = run_stats(elapsed);
  report.elapsed_ns = time.mean;
  report.run_elapsed_ns = elapsed;
  if (runs.size() > 1) {
    report.elapsed_stddev_ns = time.stddev_of_mean;
    report.elapsed_rel_stddev = time.rel_stddev;
    for (std::size_t r = 0; r < report.rows.size(); ++r) {
      std::vector<double> samples;
      for (const StatRun& run : runs) samples.push_back(run.rows[r].scaled);
      RunStats stats = run_stats(samples);
      report.rows[r].scaled = stats.mean;
      report.rows[r].rel_stddev = stats.rel_stddev;
    }
  }
  if (const std::optional<rusage>& usage = runs.back().usage) {
    report.user_s = static_cast<double>(usage->ru_utime.tv_sec) + static_cast<double>(usage->ru_utime.tv_usec) / 1e6;
    report.sys_s = static_cast<double>(usage->ru_stime.tv_sec) + static_cast<double>(usage->ru_stime.tv_usec) / 1e6;
  }
  compute_metrics(report.rows, report.elapsed_ns);
  return report;
}

std::vector<std::string> pass_spread_lines(const std::vector<StatRow>& rows) {
  std::vector<std::string> lines, seen;
  for (const StatRow& row : rows) {
    if (std::find(seen.begin(), seen.end(), row.event) != seen.end()) continue;
    seen.push_back(row.event);
    std::vector<double> values;
    for (const StatRow& other : rows)
      if (other.event == row.event && other.state == StatRow::State::Counted) values.push_back(other.scaled);
    if (values.size() < 2) continue;
    const auto [low, high] = std::minmax_element(values.begin(), values.end());
    const double mean = run_stats(values).mean;
    char line[256];
    const std::string unit = row.unit.empty() ? "" : " " + row.unit;
    std::snprintf(line, sizeof line, "%s, counted in %zu passes: mean %.2f%s, spread %.2f%% (from %.2f to %.2f)",
                  row.event.c_str(), values.size(), mean, unit.c_str(), mean == 0 ? 0.0 : 100.0 * (*high - *low) / mean,
                  *low, *high);
    lines.emplace_back(line);
  }
  return lines;
}

std::vector<std::string> small_count_warnings(const std::vector<StatRow>& empty, const std::vector<StatRow>& rows,
                                              double fraction) {
  std::vector<std::string> warnings;
  for (std::size_t i = 0; i < rows.size() && i < empty.size(); ++i) {
    const StatRow& row = rows[i];
    if (row.state != StatRow::State::Counted || empty[i].state != StatRow::State::Counted) continue;
    if (empty[i].scaled <= fraction * row.scaled) continue;
    char amount[64], text[384];
    if (row.unit.empty())
      std::snprintf(amount, sizeof amount, "%.0f", empty[i].scaled);
    else
      std::snprintf(amount, sizeof amount, "%.2f %s", empty[i].scaled, row.unit.c_str());
    std::snprintf(text, sizeof text,
                  "warning: region too small: starting and ending a program (an empty one, true, counts %s) is "
                  "%.0f%% of this count of '%s'; measure more work in one run.",
                  amount, row.scaled == 0 ? 100.0 : std::min(100.0, 100.0 * empty[i].scaled / row.scaled),
                  row.event.c_str());
    warnings.emplace_back(text);
  }
  return warnings;
}

}  // namespace perfmon
