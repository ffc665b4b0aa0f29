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

// perf's JSON lines (stat_json.cpp); an interval's rows start with its "interval" field.
std::string json_rows(const std::vector<StatRow>& rows, const double* interval_s);

}  // namespace perfmon::present
