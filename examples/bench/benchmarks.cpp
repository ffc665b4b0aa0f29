// SPDX-License-Identifier: Apache-2.0
// The example project's functions as Google Benchmark benchmarks (docs/bench.md): perfmon bench
// --google-benchmark runs each by itself, its timed loop once, and counts that loop alone.
#include <benchmark/benchmark.h>

#include "parse_and_sum.h"

namespace {

void BM_ParseDigits(benchmark::State& state) {
  for (auto _ : state) parse_digits(static_cast<unsigned long>(state.range(0)));
  benchmark::DoNotOptimize(checksum);
}

void BM_SumSquares(benchmark::State& state) {
  for (auto _ : state) sum_squares(static_cast<unsigned long>(state.range(0)));
  benchmark::DoNotOptimize(checksum);
}

}  // namespace

BENCHMARK(BM_ParseDigits)->Arg(1000)->Arg(100000);
BENCHMARK(BM_SumSquares)->Arg(100000);
BENCHMARK_MAIN();
