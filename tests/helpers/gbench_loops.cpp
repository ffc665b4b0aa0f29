// SPDX-License-Identifier: Apache-2.0
// A Google Benchmark binary whose loops run known instruction counts, for perfmon bench
// --google-benchmark (tests/cli/bench_test.cpp): each iteration of BM_Spin/N runs exact_loop(N), 2N
// instructions, and its set-up before the timed loop spins a million times, which a
// benchmark's counts must not include.
#include <benchmark/benchmark.h>

#include "exact_loop.h"

namespace {

void BM_Spin(benchmark::State& state) {
  exact_loop(1'000'000);  // the set-up: not the loop's
  for (auto _ : state) exact_loop(static_cast<unsigned long>(state.range(0)));
}

}  // namespace

BENCHMARK(BM_Spin)->Arg(1000)->Arg(3000);
BENCHMARK(BM_Spin)->Arg(1000)->Threads(2);
BENCHMARK_MAIN();
