// SPDX-License-Identifier: Apache-2.0
// perfmon: two profiles compared as perf diff compares them — per file and function (or the keys
// given), each one's share of its profile's period in the base and in the new one, and the change:
// what got slower, what got faster, what appeared and what went away.
#pragma once

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
};

struct DiffOptions {
  std::vector<ReportKey> sort = {ReportKey::Dso, ReportKey::Symbol};  // perf diff's default
};

// One event of each: its rows, the largest changes first (perf's delta-abs order: then the larger
// base share, then by name); rows in the base only last.
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
