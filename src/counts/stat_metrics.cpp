// SPDX-License-Identifier: Apache-2.0
// perf stat -M: a metric set's values from stat rows, part by part, placed as perf prints them.
#include <algorithm>
#include <cmath>
#include <set>
#include <utility>

#include "counts/hybrid_totals.hpp"
#include "perfmon/stat.hpp"

namespace perfmon {

namespace {

// What a metric's input is in one part: its value and error, or why it has none.
struct Input {
  double value = std::nan("");
  double error = 0;
  std::string missing;  // "cycles is not supported here" where value is NaN
};

Input input_of(const std::string& event, const std::vector<const StatRow*>& part, std::optional<double> duration_s,
               std::optional<double> user_s, std::optional<double> sys_s, bool region) {
  Input input;
  // perf's tool events, in seconds in its expressions.
  if (event == "duration_time") {
    if (duration_s)
      input.value = *duration_s;
    else
      input.missing = "duration_time is not known here";
    return input;
  }
  if (event == "user_time" || event == "system_time") {
    const std::optional<double> seconds = event == "user_time" ? user_s : sys_s;
    if (seconds && !region)
      input.value = *seconds;
    else
      input.missing = event + " is a command's CPU time, not known here";
    return input;
  }
  for (const StatRow* row : part) {
    if (!row->total_name.empty() || (row->event != event && row->event != event + ":u")) continue;
    switch (row->state) {
      case StatRow::State::Counted: {
        // The count as the row extrapolates it, in the event's own units (the clocks' nanoseconds).
        double count = row->scaled / (row->scale != 0 ? row->scale : 1);
        if (analysis::is_clock_event(row->type, row->config)) count *= 1e6;  // shown in msec
        input.value = count;
        if (row->error_percent) input.error = count * *row->error_percent / 100;
        return input;
      }
      case StatRow::State::NotSupported:
        input.missing = event + " is not supported here";
        return input;
      case StatRow::State::NotScheduled:
        input.missing = event + " could not be scheduled on the PMU";
        return input;
      case StatRow::State::NotCounted:
        input.missing = event + " was not counted";
        return input;
    }
  }
  input.missing = event + " was not measured";
  return input;
}

}  // namespace

std::vector<std::string> add_metrics(std::vector<StatRow>& rows, const MetricTable& table, const MetricSet& set,
                                     double elapsed_ns, std::optional<double> user_s, std::optional<double> sys_s) {
  std::vector<std::string> sentences;
  std::set<std::string> said;
  // The parts, in the order their rows come.
  std::vector<std::pair<std::string, std::string>> parts;
  for (const StatRow& row : rows)
    if (!row.metric_only && std::find(parts.begin(), parts.end(), std::pair{row.prefix, row.region}) == parts.end())
      parts.emplace_back(row.prefix, row.region);
  // No row at all (none of the events could be opened): each metric still says why it has no value.
  if (parts.empty()) parts.emplace_back("", "");
  std::vector<StatRow> placed;                           // the rows with the metrics' lines among them
  std::vector<std::vector<StatRow>> after(rows.size());  // metric lines that follow each row
  for (const auto& [prefix, region] : parts) {
    std::vector<const StatRow*> part;
    std::vector<std::size_t> at;
    for (std::size_t r = 0; r < rows.size(); ++r)
      if (!rows[r].metric_only && rows[r].prefix == prefix && rows[r].region == region) {
        part.push_back(&rows[r]);
        at.push_back(r);
      }
    // The part's time: the run's; in a region, the region's own, its counters' time enabled there
    // (a thread's time in it, as likwid's metrics take it; the threads' times summed for their sums).
    std::optional<double> duration_s;
    if (!region.empty()) {
      std::uint64_t enabled = 0;
      for (const StatRow* row : part) enabled = std::max(enabled, row->value.enabled);
      if (enabled > 0) duration_s = static_cast<double>(enabled) / 1e9;
    } else if (elapsed_ns > 0) {
      duration_s = elapsed_ns / 1e9;
    }
    std::vector<Input> inputs;
    std::vector<double> values, errors;
    for (const std::string& event : set.events()) {
      inputs.push_back(input_of(event, part, duration_s, user_s, sys_s, !region.empty()));
      values.push_back(inputs.back().value);
      errors.push_back(inputs.back().error);
    }
    const std::vector<MetricResult> results = set.evaluate(values, errors);
    std::set<std::size_t> anchored;  // rows that took a metric of this set
    for (std::size_t position = 0; position < results.size(); ++position) {
      const MetricResult& result = results[position];
      const MetricDefinition& metric = table.metrics()[result.metric];
      // An input that was not counted makes no value, even where the expression would give one
      // without it (max(NaN, 0) is 0): a metric is shown only from all it reads.
      std::string why;
      for (std::size_t event : set.events_of(position))
        if (!inputs[event].missing.empty()) {
          why = inputs[event].missing;
          break;
        }
      if (std::isnan(result.value) || !why.empty()) {
        if (why.empty()) why = "its expression has no value for these counts (a division by zero)";
        const std::string sentence = "The metric " + metric.name + " has no value here: " + why + ".";
        if (said.insert(sentence).second) sentences.push_back(sentence);
        continue;
      }
      if (at.empty()) continue;  // a value from tool events alone, with no row to show it on
      // The row of its first event that was counted here; else the part's last row.
      std::size_t anchor = at.back();
      for (std::size_t event : set.events_of(position)) {
        bool found = false;
        for (std::size_t p = 0; p < part.size() && !found; ++p)
          if (part[p]->event == set.events()[event] || part[p]->event == set.events()[event] + ":u") {
            anchor = at[p];
            found = true;
          }
        if (found) break;
      }
      StatRow shown;
      shown.prefix = prefix;
      shown.prefix_kind = rows[anchor].prefix_kind;
      shown.aggregated_cpus = rows[anchor].aggregated_cpus;
      shown.region = region;
      shown.emulated = rows[anchor].emulated;
      shown.metric = result.value;
      shown.metric_unit = metric.unit.empty() ? metric.name : metric.unit + "  " + metric.name;
      if (result.error > 0) shown.metric_error = result.error;
      shown.metric_over_threshold = result.over_threshold;
      // perf marks a value past its MetricThreshold (in colour, or "bad" in JSON): the table says so
      // once under it, with the threshold, for every output (CSV and JSON have it on the row too).
      if (result.over_threshold.value_or(false)) {
        const std::string sentence = "The metric " + metric.name + " is past its threshold (" + metric.threshold + ").";
        if (said.insert(sentence).second) sentences.push_back(sentence);
      }
      if (anchored.insert(anchor).second) {
        StatRow& row = rows[anchor];
        row.metric = shown.metric;
        row.metric_unit = shown.metric_unit;
        row.metric_error = shown.metric_error;
        row.metric_over_threshold = shown.metric_over_threshold;
      } else {
        shown.metric_only = true;
        after[anchor].push_back(std::move(shown));
      }
    }
  }
  for (std::size_t r = 0; r < rows.size(); ++r) {
    placed.push_back(std::move(rows[r]));
    for (StatRow& line : after[r]) placed.push_back(std::move(line));
  }
  rows = std::move(placed);
  return sentences;
}

}  // namespace perfmon
