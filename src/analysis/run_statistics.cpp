#include <cmath>

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

}  // namespace perfmon
