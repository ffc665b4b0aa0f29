// SPDX-License-Identifier: Apache-2.0
#include <linux/perf_event.h>

#include "counts/hybrid_totals.hpp"
#include "perfmon/stat.hpp"

namespace perfmon {

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

}  // namespace

void compute_metrics(std::vector<StatRow>& rows, double elapsed_ns) {
  // A metric's rows are of one part of the measurement: its location, set or pass, and region.
  auto find = [&](const StatRow& of, std::uint32_t type, std::uint64_t config) -> const StatRow* {
    for (const StatRow& row : rows)
      if (row.prefix == of.prefix && row.region == of.region && row.type == type && row.config == config &&
          row.state == StatRow::State::Counted)
        return &row;
    return nullptr;
  };
  for (StatRow& row : rows) {
    if (row.metric_only) continue;  // add_metrics()'s line
    row.metric.reset();
    row.metric_unit.clear();
    if (row.state != StatRow::State::Counted) continue;
    if (analysis::is_clock_event(row.type, row.config)) {
      if (elapsed_ns > 0 && row.region.empty()) {    // a region was open for less than elapsed_ns
        row.metric = row.scaled * 1e6 / elapsed_ns;  // scaled is in msec
        row.metric_unit = "CPUs utilized";
      }
      continue;
    }
    const StatRow* task_clock = find(row, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK);
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
      const StatRow* base = find(row, ratio.base_type, ratio.base_config);
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

}  // namespace perfmon
