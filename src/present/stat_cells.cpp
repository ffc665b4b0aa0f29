// SPDX-License-Identifier: Apache-2.0
#include "present/stat_cells.hpp"

#include <cstdarg>
#include <cstdio>

namespace perfmon::present {

std::string group_thousands(double value) {
  std::string digits = format_text("%.0f", value);
  std::string out;
  std::size_t start = digits[0] == '-' ? 1 : 0;
  out.append(digits, 0, start);
  for (std::size_t i = start; i < digits.size(); ++i) {
    if (i > start && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

std::string format_text(const char* format, ...) {
  char buffer[512];
  va_list args;
  va_start(args, format);
  std::vsnprintf(buffer, sizeof buffer, format, args);
  va_end(args);
  return buffer;
}

std::string value_text(const StatRow& row, bool grouped) {
  switch (row.state) {
    case StatRow::State::NotSupported:
      return "<not supported>";
    case StatRow::State::NotCounted:
      return "<not counted>";
    case StatRow::State::NotScheduled:
      return "<not scheduled>";
    case StatRow::State::Counted:
      break;
  }
  if (row.unit.empty() && row.scale == 1.0)
    return grouped ? group_thousands(row.scaled) : format_text("%.0f", row.scaled);
  return format_text("%.2f", row.scaled);
}

double running_percent(const StatRow& row) {
  if (row.state != StatRow::State::Counted || row.value.enabled == 0) return 100.0;
  return 100.0 * row.value.running_fraction();
}

std::optional<double> variance_percent(const StatRow& row) {
  if (row.rel_stddev) return row.rel_stddev;
  if (row.state == StatRow::State::Counted) return row.error_percent;
  return std::nullopt;
}

std::uint64_t event_runtime(const StatRow& row) {
  return row.state == StatRow::State::Counted ? row.value.running : 0;
}

}  // namespace perfmon::present
