// SPDX-License-Identifier: Apache-2.0
// perfmon: two profiles compared as perf diff compares them — per file and function (or the keys
// given), each one's share of its profile's period in the base and in the new one, and the change:
// what got slower, what got faster, what appeared and what went away.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "perfmon/profile.hpp"
#include "perfmon/report_output.hpp"

namespace perfmon {

struct DiffRow {
  std::string command, dso, symbol;     // the keys compared by; those not compared by are ""
  bool kernel = false;                  // [k] (else [.])
  std::optional<double> baseline, now;  // shares in percent, where the row is in that profile
  std::uint64_t base_period = 0, new_period = 0;
  // now - baseline in points; none where the row is in the base only (perf's blank delta).
  std::optional<double> delta() const;
  // new period / base period; none unless the row is in both (perf's N/A).
  std::optional<double> ratio() const;
  // new period * new_weight - base period * base_weight; none unless the row is in both.
  std::optional<double> weighted_diff(std::int64_t base_weight, std::int64_t new_weight) const;
};

struct DiffOptions {
  std::vector<ReportKey> sort = {ReportKey::Dso, ReportKey::Symbol};  // perf diff's default
  // perf diff's -c: the column that compares, and the order of the rows (by it, largest first).
  // DeltaAbs (the default) orders by the change's size, Delta by the change itself.
  enum class Compute { DeltaAbs, Delta, Ratio, WeightedDiff } compute = Compute::DeltaAbs;
  std::int64_t base_weight = 1, new_weight = 1;  // -c wdiff:BASE,NEW
  bool periods = false;                          // -p: each file's period beside its column
};

// perf diff's -c argument: delta-abs, delta, ratio or wdiff:W1,W2 into `options`; throws
// perfmon::Error naming what it does not know.
void parse_diff_compute(const std::string& text, DiffOptions& options);

// One event of each: its rows, the largest first by options.compute (delta-abs: the larger change,
// then the larger base share, then by name); rows it cannot compare last.
std::vector<DiffRow> diff_rows(const Profile& base, std::size_t base_event, const Profile& now, std::size_t now_event,
                               const DiffOptions& options);

// perf diff --stdio's text for every event the two profiles share by name ("# Event 'name'",
// "# Baseline  Delta Abs  Shared Object  Symbol", rows); events of one profile only are named in a
// line at the end.
std::string format_diff_table(const Profile& base, const Profile& now, const DiffOptions& options);
// The same as one JSON document: {"events":[{"event":..., "rows":[{"dso":..., "symbol":...,
// "kernel":..., "baseline":..., "new":..., "delta":..., "base_period":..., "new_period":...}]}]}.
std::string format_diff_json(const Profile& base, const Profile& now, const DiffOptions& options);

}  // namespace perfmon
