// SPDX-License-Identifier: Apache-2.0
#include <cmath>
#include <nlohmann/json.hpp>

#include "present/shapes.hpp"
#include "present/stat_cells.hpp"

namespace perfmon::present {

namespace {
// perf writes these with a fixed number of decimals; the JSON numbers keep that many.
double rounded(double value, double decimals) {
  const double scale = std::pow(10.0, decimals);
  return std::round(value * scale) / scale;
}
}  // namespace

std::string json_rows(const std::vector<StatRow>& rows, const double* interval_s) {
  // Rows of several threads are per-thread, even when some are CPU-named threads ("CPU 0/KVM").
  bool per_thread = false;
  for (const StatRow& row : rows)
    if (!row.prefix.empty() && row.prefix_kind.empty() && !row.prefix.starts_with("CPU")) per_thread = true;
  std::string out;
  for (const StatRow& row : rows) {
    nlohmann::ordered_json line;
    if (interval_s != nullptr) line["interval"] = rounded(*interval_s, 9);
    if (row.aggregated_cpus != 0) {  // perf's {"core" : "S0-D0-C0", "aggregate-number" : 1}
      line[row.prefix_kind] = row.prefix;
      line["aggregate-number"] = row.aggregated_cpus;
    } else if (!row.prefix_kind.empty() && row.prefix.starts_with(row.prefix_kind)) {
      line[row.prefix_kind] = row.prefix.substr(row.prefix_kind.size());
    } else if (!row.prefix.empty()) {
      if (row.prefix.starts_with("CPU") && !per_thread)
        line["cpu"] = row.prefix.substr(3);
      else
        line["thread"] = row.prefix;
    }
    if (!row.region.empty()) line["region"] = row.region;
    auto metric_fields = [&row](nlohmann::ordered_json& fields) {
      fields["metric-value"] = rounded(row.metric.value_or(0.0), 6);
      fields["metric-unit"] = row.metric_unit;
      if (row.metric_error) fields["metric-error"] = rounded(*row.metric_error, 6);
      if (row.metric_over_threshold) fields["metric-threshold"] = *row.metric_over_threshold ? "bad" : "good";
    };
    if (row.metric_only) {  // perf's metric line: the metric's fields alone
      metric_fields(line);
      out += line.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n";
      continue;
    }
    line["counter-value"] =
        row.state == StatRow::State::Counted ? format_text("%f", row.scaled) : value_text(row, false);
    line["unit"] = row.unit;
    line["event"] = row.event;
    line["event-runtime"] = event_runtime(row);
    line["pcnt-running"] = rounded(running_percent(row), 2);
    if (std::optional<double> spread = variance_percent(row)) line["variance"] = rounded(*spread, 2);
    if (row.error_percent) line["error"] = rounded(*row.error_percent, 2);
    metric_fields(line);
    if (row.emulated) line["emulated"] = true;
    out += line.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n";
  }
  return out;
}

}  // namespace perfmon::present
