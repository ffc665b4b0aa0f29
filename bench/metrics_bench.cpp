// SPDX-License-Identifier: Apache-2.0
// What a metric costs (issue 48): reading and compiling perfmon's common table and the largest
// table it ships (Granite Rapids'); evaluating every metric of them, and of a generated table the
// size of Intel's top-down one (300 metrics over 40 events, each naming the one before, with
// thresholds), once per interval, with exact counts and with every count an estimate (its error
// propagated). docs/benchmarks.md has the figures.
#include <benchmark/benchmark.h>

#include <string>
#include <vector>

#include "perfmon/metric_table.hpp"

namespace {

perfmon::MetricFacts facts() {
  perfmon::MetricFacts answers;
  answers.literal = [](std::string_view) -> std::optional<double> { return 1; };
  return answers;
}

// 300 metrics in perf's JSON shape: each a few operations over four of 40 events, a condition on a
// literal, and the metric before it, as top-down's levels name their parents.
std::string large_table() {
  std::string json = "[";
  for (int i = 0; i < 300; ++i) {
    auto event = [&](int offset) { return "EVENT_" + std::to_string((i + offset) % 40) + ".ANY"; };
    std::string expression = "d_ratio(" + event(0) + " + 2 * " + event(7) + ", " + event(3) + ") + (" + event(11) +
                             " / 4 if #smt_on else " + event(13) + ")";
    if (i > 0) expression += " + 0.5 * metric_" + std::to_string(i - 1);
    json += std::string(i ? "," : "") + "{\"MetricName\": \"metric_" + std::to_string(i) + "\", \"MetricExpr\": \"" +
            expression + "\", \"MetricGroup\": \"All\", \"ScaleUnit\": \"100%\", \"MetricThreshold\": \"metric_" +
            std::to_string(i) + " > 0.2 & " + event(5) + " > 10\"}";
  }
  return json + "]";
}

void BM_CompileCommonTable(benchmark::State& state) {
  for (auto _ : state) {
    const perfmon::MetricTable table = perfmon::MetricTable::common();
    perfmon::MetricSet set(table, table.select("Default,Summary,Cache,TLB"), facts());
    benchmark::DoNotOptimize(set.events().size());
  }
}
BENCHMARK(BM_CompileCommonTable);

void evaluate(benchmark::State& state, const perfmon::MetricTable& table, const std::string& chosen) {
  const perfmon::MetricSet set(table, table.select(chosen), facts());
  std::vector<double> values(set.events().size()), errors(set.events().size(), state.range(0) ? 25.0 : 0.0);
  for (std::size_t i = 0; i < values.size(); ++i) values[i] = 1000.0 + 37.0 * static_cast<double>(i);
  for (auto _ : state) benchmark::DoNotOptimize(set.evaluate(values, errors));
  state.counters["metrics"] = static_cast<double>(table.select(chosen).size());
  state.counters["events"] = static_cast<double>(set.events().size());
}

void BM_EvaluateCommonTable(benchmark::State& state) {
  evaluate(state, perfmon::MetricTable::common(), "Default,Summary,Cache,TLB");
}
BENCHMARK(BM_EvaluateCommonTable)->Arg(0)->Arg(1)->ArgName("estimated");

void BM_EvaluateLargeTable(benchmark::State& state) {
  evaluate(state, perfmon::MetricTable::from_json(large_table(), "generated"), "All");
}
BENCHMARK(BM_EvaluateLargeTable)->Arg(0)->Arg(1)->ArgName("estimated");

// The largest table perfmon ships: Granite Rapids' (intel/perfmon's), every metric.
constexpr const char* kLargestShipped = "GenuineIntel-6-AD-0";

std::string every_metric(const perfmon::MetricTable& table) {
  std::string names;
  for (const perfmon::MetricDefinition& metric : table.metrics()) names += (names.empty() ? "" : ",") + metric.name;
  return names;
}

// What `perfmon stat -M` pays once per run on such a CPU: the table read from its JSON, every
// metric of it compiled.
void BM_ReadLargestShippedTable(benchmark::State& state) {
  for (auto _ : state) {
    const perfmon::MetricTable table = perfmon::MetricTable::shipped(kLargestShipped);
    std::vector<std::size_t> every(table.metrics().size());
    for (std::size_t i = 0; i < every.size(); ++i) every[i] = i;
    perfmon::MetricSet set(table, every, facts());
    benchmark::DoNotOptimize(set.events().size());
  }
}
BENCHMARK(BM_ReadLargestShippedTable)->Unit(benchmark::kMicrosecond);

void BM_EvaluateLargestShippedTable(benchmark::State& state) {
  const perfmon::MetricTable table = perfmon::MetricTable::shipped(kLargestShipped);
  evaluate(state, table, every_metric(table));
}
BENCHMARK(BM_EvaluateLargestShippedTable)->Arg(0)->Arg(1)->ArgName("estimated");

}  // namespace

BENCHMARK_MAIN();
