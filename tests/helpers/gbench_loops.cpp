// SPDX-License-Identifier: Apache-2.0
// A Google Benchmark binary whose loops run known instruction counts, for perfmon bench
// --google-benchmark (tests/cli/bench_test.cpp): each iteration of BM_Spin/N spins N times through
// a two-instruction loop, and its set-up before the timed loop spins a million times, which a
// benchmark's counts must not include.
#include <benchmark/benchmark.h>

namespace {

// Exactly 2n instructions: n decrements and n branches.
inline void spin(long n) {
#if defined(__x86_64__)
  asm volatile("1: dec %0\n\tjnz 1b" : "+r"(n) : : "cc");
#elif defined(__aarch64__)
  asm volatile("1: subs %0, %0, #1\n\tb.ne 1b" : "+r"(n) : : "cc");
#else
#error "spin() has no loop for this architecture"
#endif
}

void BM_Spin(benchmark::State& state) {
  spin(1'000'000);  // the set-up: not the loop's
  for (auto _ : state) spin(state.range(0));
}

}  // namespace

BENCHMARK(BM_Spin)->Arg(1000)->Arg(3000);
BENCHMARK(BM_Spin)->Arg(1000)->Threads(2);
BENCHMARK_MAIN();
