// SPDX-License-Identifier: Apache-2.0
// The three shapes of the stat report, one file each; stat_output.cpp chooses among them.
#pragma once

#include <string>
#include <vector>

#include "perfmon/stat.hpp"

namespace perfmon::present {

// perf's table (stat_table.cpp).
std::string table_report(const StatReport& report);
std::string table_interval(const std::vector<StatRow>& rows, double timestamp_s, bool print_header);

// perf's CSV: value, unit, event, runtime, running %, [variance,] metric value, metric unit (stat_csv.cpp).
std::string csv_rows(const std::vector<StatRow>& rows, const std::string& separator, const std::string& lead);

// perf stat --metric-only (stat_metric_only.cpp): the metrics alone, a column each, a line per part;
// the headings first where asked (always for a report, before the first interval's line).
std::string metric_only_table(const std::vector<StatRow>& rows, const std::string& lead, bool print_header);
std::string metric_only_csv(const std::vector<StatRow>& rows, const std::string& separator, const std::string& lead,
                            bool print_header);
std::string metric_only_json(const std::vector<StatRow>& rows, const double* interval_s);

// perf's JSON lines (stat_json.cpp); an interval's rows start with its "interval" field.
std::string json_rows(const std::vector<StatRow>& rows, const double* interval_s);

}  // namespace perfmon::present
