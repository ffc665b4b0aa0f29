// SPDX-License-Identifier: Apache-2.0
// What every shape of the stat report prints alike: a row's value text and running percentage.
#pragma once

#include <optional>
#include <string>

#include "perfmon/stat.hpp"

namespace perfmon::present {

// "<not supported>", "<not counted>", "<not scheduled>", or the scaled value: whole counts without
// decimals (grouped by thousands in the table), units and scaled events with two.
std::string value_text(const StatRow& row, bool grouped);
// The share of the enabled time the event was counting, in percent (100 when it was not counted).
double running_percent(const StatRow& row);
// perf's "+- x%" column: the relative standard deviation over repeated runs where there are
// several, else the standard error of an extrapolated value; none for an exact count.
std::optional<double> variance_percent(const StatRow& row);
// The kernel's running time for a counted row, else 0.
std::uint64_t event_runtime(const StatRow& row);
// The value rounded to a whole number with thousands separators, as perf prints counts in the table
// (in locales that have them): "1,234,567".
std::string group_thousands(double value);
// snprintf into a std::string.
std::string format_text(const char* format, ...) __attribute__((format(printf, 1, 2)));

}  // namespace perfmon::present
