#include "report/stat_report.hpp"

#include <linux/perf_event.h>

#include <cmath>
#include <cstdio>
#include <functional>

namespace perfmon::report {

namespace {

constexpr std::uint64_t cache_config(int cache, int op, int result) {
  return static_cast<std::uint64_t>(cache) | (static_cast<std::uint64_t>(op) << 8) |
         (static_cast<std::uint64_t>(result) << 16);
}

struct RatioMetric {
  std::uint32_t type;
  std::uint64_t config;  // the event the metric is printed on
  std::uint32_t base_type;
  std::uint64_t base_config;  // the event it is divided by
  double factor;              // 100 for percentages
  const char* unit;
};

// perf's shadow metrics that divide one event by another (tools/perf/util/stat-shadow.c).
constexpr RatioMetric kRatios[] = {
    {PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, 1, "insn per cycle"},
    {PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES, PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS, 100,
     "of all branches"},
    {PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES, PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_REFERENCES, 100,
     "of all cache refs"},
    {PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_FRONTEND, PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, 100,
     "frontend cycles idle"},
    {PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_BACKEND, PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, 100,
     "backend cycles idle"},
    {PERF_TYPE_HW_CACHE, cache_config(PERF_COUNT_HW_CACHE_L1D, 0, 1), PERF_TYPE_HW_CACHE,
     cache_config(PERF_COUNT_HW_CACHE_L1D, 0, 0), 100, "of all L1-dcache accesses"},
    {PERF_TYPE_HW_CACHE, cache_config(PERF_COUNT_HW_CACHE_L1I, 0, 1), PERF_TYPE_HW_CACHE,
     cache_config(PERF_COUNT_HW_CACHE_L1I, 0, 0), 100, "of all L1-icache accesses"},
    {PERF_TYPE_HW_CACHE, cache_config(PERF_COUNT_HW_CACHE_LL, 0, 1), PERF_TYPE_HW_CACHE,
     cache_config(PERF_COUNT_HW_CACHE_LL, 0, 0), 100, "of all LL-cache accesses"},
    {PERF_TYPE_HW_CACHE, cache_config(PERF_COUNT_HW_CACHE_DTLB, 0, 1), PERF_TYPE_HW_CACHE,
     cache_config(PERF_COUNT_HW_CACHE_DTLB, 0, 0), 100, "of all dTLB cache accesses"},
    {PERF_TYPE_HW_CACHE, cache_config(PERF_COUNT_HW_CACHE_ITLB, 0, 1), PERF_TYPE_HW_CACHE,
     cache_config(PERF_COUNT_HW_CACHE_ITLB, 0, 0), 100, "of all iTLB cache accesses"},
};

std::string printf_string(const char* format, auto... args) {
  char buffer[512];
  std::snprintf(buffer, sizeof buffer, format, args...);
  return buffer;
}

// perf prints counts with thousands separators in the table (in locales that have them).
std::string group_thousands(double value) {
  std::string digits = printf_string("%.0f", value);
  std::string out;
  std::size_t start = digits[0] == '-' ? 1 : 0;
  out.append(digits, 0, start);
  for (std::size_t i = start; i < digits.size(); ++i) {
    if (i > start && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

bool integral_unit(const StatRow& row) {
  return row.unit.empty() && row.scale == 1.0;
}

std::string value_text(const StatRow& row, bool table) {
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
  if (integral_unit(row)) return table ? group_thousands(row.scaled) : printf_string("%.0f", row.scaled);
  return printf_string("%.2f", row.scaled);
}

double running_percent(const StatRow& row) {
  if (row.state != StatRow::State::Counted || row.value.enabled == 0) return 100.0;
  return 100.0 * row.value.running_fraction();
}

const char* rate_unit(double& per_second) {
  if (per_second >= 1e9) {
    per_second /= 1e9;
    return "G/sec";
  }
  if (per_second >= 1e6) {
    per_second /= 1e6;
    return "M/sec";
  }
  if (per_second >= 1e3) {
    per_second /= 1e3;
    return "K/sec";
  }
  return "/sec";
}

std::string csv_line(const StatRow& row, const std::string& sep, const std::string& lead) {
  std::string line = lead;
  if (!row.prefix.empty()) line += row.prefix + sep;
  line += value_text(row, false) + sep + row.unit + sep + row.event + sep;
  line += std::to_string(row.state == StatRow::State::Counted ? row.value.running : 0) + sep;
  line += printf_string("%.2f", running_percent(row));
  if (row.rel_stddev) line += sep + printf_string("%.2f%%", *row.rel_stddev);
  line += sep + (row.metric ? printf_string("%.3f", *row.metric) : "") + sep + row.metric_unit;
  return line + "\n";
}

std::string json_line(const StatRow& row, const std::string& lead_fields, bool per_thread) {
  std::string line = "{" + lead_fields;
  if (!row.prefix.empty()) {
    bool is_cpu = row.prefix.rfind("CPU", 0) == 0 && !per_thread;
    line += is_cpu ? "\"cpu\" : " + json_quote(row.prefix.substr(3)) + ", "
                   : "\"thread\" : " + json_quote(row.prefix) + ", ";
  }
  std::string value = row.state == StatRow::State::Counted ? printf_string("%f", row.scaled) : value_text(row, false);
  line += "\"counter-value\" : " + json_quote(value) + ", ";
  line += "\"unit\" : " + json_quote(row.unit) + ", ";
  line += "\"event\" : " + json_quote(row.event) + ", ";
  line += "\"event-runtime\" : " + std::to_string(row.state == StatRow::State::Counted ? row.value.running : 0) + ", ";
  line += "\"pcnt-running\" : " + printf_string("%.2f", running_percent(row)) + ", ";
  if (row.rel_stddev) line += "\"variance\" : " + printf_string("%.2f", *row.rel_stddev) + ", ";
  line += "\"metric-value\" : " + printf_string("%f", row.metric.value_or(0.0)) + ", ";
  line += "\"metric-unit\" : " + json_quote(row.metric_unit) + "}\n";
  return line;
}

std::string table_line(const StatRow& row, const std::string& lead) {
  std::string line = lead;
  if (!row.prefix.empty()) line += printf_string("%-12s ", row.prefix.c_str());
  line += printf_string("%18s %-4s %-32s", value_text(row, true).c_str(), row.unit.c_str(), row.event.c_str());
  if (row.metric) line += printf_string(" # %8.3f %-23s", *row.metric, row.metric_unit.c_str());
  if (row.rel_stddev) line += printf_string("  ( +- %5.2f%% )", *row.rel_stddev);
  if (row.state == StatRow::State::Counted && row.value.running < row.value.enabled)
    line += printf_string("  (%.2f%%)", running_percent(row));
  while (!line.empty() && line.back() == ' ') line.pop_back();
  return line + "\n";
}

std::string rows_text(const std::vector<StatRow>& rows, StatFormat format, const std::string& sep,
                      const std::string& csv_lead, const std::string& json_lead, const std::string& table_lead) {
  bool per_thread = false;
  for (const StatRow& row : rows)
    if (!row.prefix.empty() && row.prefix.rfind("CPU", 0) != 0) per_thread = true;
  std::string out;
  for (const StatRow& row : rows) {
    switch (format) {
      case StatFormat::Csv:
        out += csv_line(row, sep, csv_lead);
        break;
      case StatFormat::Json:
        out += json_line(row, json_lead, per_thread);
        break;
      case StatFormat::Table:
        out += table_line(row, table_lead);
        break;
    }
  }
  return out;
}

}  // namespace

bool is_clock_event(std::uint32_t type, std::uint64_t config) {
  return type == PERF_TYPE_SOFTWARE && (config == PERF_COUNT_SW_TASK_CLOCK || config == PERF_COUNT_SW_CPU_CLOCK);
}

void append_hybrid_totals(std::vector<StatRow>& rows) {
  std::vector<StatRow> out;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    out.push_back(rows[i]);
    const StatRow& row = rows[i];
    if (row.total_name.empty()) continue;
    bool last_of_its_event = true;
    for (std::size_t j = i + 1; j < rows.size(); ++j)
      last_of_its_event &= !(rows[j].total_name == row.total_name && rows[j].prefix == row.prefix);
    if (!last_of_its_event) continue;
    StatRow total;
    total.prefix = row.prefix;
    total.event = row.total_name;
    total.type = row.type;
    total.config = row.config & 0xffffffffULL;  // without the PMU type, as the generic event
    total.scale = row.scale;
    total.unit = row.unit;
    total.state = StatRow::State::NotSupported;
    for (const StatRow& part : rows) {
      if (part.total_name != row.total_name || part.prefix != row.prefix) continue;
      if (part.state != StatRow::State::Counted) continue;
      total.state = StatRow::State::Counted;
      total.value.raw += part.value.raw;  // each part counted only while the task ran on its CPUs
      total.value.enabled += part.value.enabled;
      total.value.running += part.value.running;
      total.scaled += part.scaled;
    }
    out.push_back(std::move(total));
  }
  rows = std::move(out);
}

void compute_metrics(std::vector<StatRow>& rows, double elapsed_ns) {
  auto find = [&](const std::string& prefix, std::uint32_t type, std::uint64_t config) -> const StatRow* {
    for (const StatRow& row : rows)
      if (row.prefix == prefix && row.type == type && row.config == config && row.state == StatRow::State::Counted)
        return &row;
    return nullptr;
  };
  for (StatRow& row : rows) {
    row.metric.reset();
    row.metric_unit.clear();
    if (row.state != StatRow::State::Counted) continue;
    if (is_clock_event(row.type, row.config)) {
      if (elapsed_ns > 0) {
        row.metric = row.scaled * 1e6 / elapsed_ns;  // scaled is in msec
        row.metric_unit = "CPUs utilized";
      }
      continue;
    }
    const StatRow* task_clock = find(row.prefix, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK);
    if (row.type == PERF_TYPE_HARDWARE && row.config == PERF_COUNT_HW_CPU_CYCLES) {
      if (task_clock != nullptr && task_clock->scaled > 0) {
        row.metric = row.scaled / (task_clock->scaled * 1e6);
        row.metric_unit = "GHz";
      }
      continue;
    }
    bool ratio_done = false;
    for (const RatioMetric& ratio : kRatios) {
      if (row.type != ratio.type || row.config != ratio.config) continue;
      const StatRow* base = find(row.prefix, ratio.base_type, ratio.base_config);
      if (base != nullptr && base->scaled > 0) {
        row.metric = row.scaled / base->scaled * ratio.factor;
        row.metric_unit = ratio.unit;
        if (ratio.factor == 100) row.metric_unit = "%  " + row.metric_unit;
      }
      ratio_done = true;
    }
    if (ratio_done) continue;
    if (task_clock != nullptr && task_clock->scaled > 0) {
      double per_second = row.scaled / (task_clock->scaled / 1e3);
      const char* unit = rate_unit(per_second);
      row.metric = per_second;
      row.metric_unit = unit;
    }
  }
}

std::string format_report(const StatReport& report, StatFormat format, const std::string& separator) {
  if (format != StatFormat::Table) return rows_text(report.rows, format, separator, "", "", "");
  std::string out = "\n Performance counter stats for " + report.target;
  if (report.runs > 1) out += " (" + std::to_string(report.runs) + " runs)";
  out += ":\n\n";
  out += rows_text(report.rows, format, separator, "", "", "");
  out += "\n";
  if (report.runs > 1) {
    out +=
        printf_string("%18.6f +- %.6f seconds time elapsed", report.elapsed_ns / 1e9, report.elapsed_stddev_ns / 1e9);
    if (report.elapsed_rel_stddev) out += printf_string("  ( +- %5.2f%% )", *report.elapsed_rel_stddev);
    out += "\n";
  } else {
    out += printf_string("%18.9f seconds time elapsed\n", report.elapsed_ns / 1e9);
  }
  if (report.user_s && report.sys_s && report.runs == 1) {
    out += printf_string("\n%18.9f seconds user\n", *report.user_s);
    out += printf_string("%18.9f seconds sys\n", *report.sys_s);
  }
  out += "\n";
  for (const std::string& note : report.footnotes) out += note + "\n";
  return out;
}

std::string format_interval(const std::vector<StatRow>& rows, double timestamp_s, StatFormat format,
                            const std::string& separator, bool print_header) {
  std::string out;
  if (format == StatFormat::Table && print_header) out += "#           time             counts unit events\n";
  std::string stamp = printf_string("%16.9f", timestamp_s);
  return out + rows_text(rows, format, separator, stamp + separator,
                         "\"interval\" : " + printf_string("%.9f", timestamp_s) + ", ", stamp + " ");
}

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

std::string json_quote(const std::string& text) {
  std::string out = "\"";
  for (char c : text) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20)
          out += printf_string("\\u%04x", c);
        else
          out += c;
    }
  }
  return out + "\"";
}

}  // namespace perfmon::report
