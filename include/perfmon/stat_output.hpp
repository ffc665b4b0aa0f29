// SPDX-License-Identifier: Apache-2.0
// perfmon: the shapes `perf stat` prints its figures in (stat.hpp computes them): its table, CSV
// with a separator of choice, and JSON, one object per line, with perf's field names and order.
#pragma once

#include <string>
#include <vector>

#include "perfmon/stat.hpp"

namespace perfmon {

enum class StatFormat { Table, Csv, Json };

// The whole report as perf prints it at the end of a run (the table with its header, footer and
// footnotes; CSV and JSON rows alone, so that they stay machine-readable). With
// report.metric_only, the rows' metrics alone, a column each headed by the metric's unit and name.
std::string format_stat_report(const StatReport& report, StatFormat format, const std::string& separator = ",");

// One interval's block: its rows, each led by the time since the start in seconds (and the table's
// column header before the first block).
// With metric_only (perf stat --metric-only), the rows' metrics alone, a column each.
std::string format_stat_interval(const std::vector<StatRow>& rows, double timestamp_s, StatFormat format,
                                 const std::string& separator = ",", bool print_header = false,
                                 bool metric_only = false);

}  // namespace perfmon
