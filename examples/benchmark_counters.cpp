// SPDX-License-Identifier: Apache-2.0
// Google Benchmark with perfmon's counts per iteration beside the times. Natively the kernel
// counts (where the machine has a PMU); on a machine without one (a cloud VM, a CI runner), run
// the same program on perfmon's emulated CPU and the counts are exact, the same every run:
//
//   perfmon stat --emulate -e instructions,branches -- ./benchmark_counters
//
// Times there are the emulator's: compare counts on the emulated CPU, times natively. For a CI
// regression check fix the iterations (BM_Sum/1024/iterations:1000 below): then each count per
// iteration is the same to the instruction from run to run (docs/emulated.md, "Regions").
#include <benchmark/benchmark.h>
#include <perfmon/catalog.hpp>
#include <perfmon/error.hpp>
#include <perfmon/scope.hpp>
#include <perfmon/session.hpp>

#include <cstdio>
#include <numeric>
#include <optional>
#include <string>
#include <vector>

namespace {

// The events, opened once on the benchmark's thread; calibrated, so that the measurement's own
// cost is taken off each count.
perfmon::CounterSession& counters() {
  static perfmon::CounterSession session = [] {
    perfmon::EventCatalog catalog;
    perfmon::SessionOptions options;
    options.inherit = false;
    perfmon::CounterSession opened(catalog.parse("instructions,branches"), perfmon::Target::self(), options);
    opened.calibrate();
    return opened;
  }();
  return session;
}

// Measures the benchmark's loop, from here to the end of the scope, and adds each count per
// iteration to the benchmark's counters (or says in its label why the machine cannot count it).
class CountsPerIteration {
 public:
  explicit CountsPerIteration(benchmark::State& state) : state_(state) { measure_.emplace(counters()); }
  ~CountsPerIteration() {
    measure_.reset();  // stopped and read
    perfmon::CounterSession& session = counters();
    std::string not_counted, reason;
    for (std::size_t i = 0; i < session.event_count(); ++i) {
      if (!session.supported(i)) {
        not_counted += (not_counted.empty() ? "" : ", ") + session.event(i).name;
        if (reason.empty()) reason = session.unsupported_reason(i);
        continue;
      }
      state_.counters[session.event(i).name] = benchmark::Counter(
          static_cast<double>(session.value(i, perfmon::Overhead::Subtract).raw), benchmark::Counter::kAvgIterations);
    }
    if (!not_counted.empty()) state_.SetLabel(not_counted + " not counted: " + reason);
  }
  CountsPerIteration(const CountsPerIteration&) = delete;
  CountsPerIteration& operator=(const CountsPerIteration&) = delete;

 private:
  benchmark::State& state_;
  std::optional<perfmon::ScopedMeasurement> measure_;
};

void BM_Sum(benchmark::State& state) {
  std::vector<long> values(static_cast<std::size_t>(state.range(0)), 1);
  CountsPerIteration counts(state);
  for (auto _ : state) {
    benchmark::DoNotOptimize(values.data());
    benchmark::DoNotOptimize(std::accumulate(values.begin(), values.end(), 0L));
  }
}
BENCHMARK(BM_Sum)->Arg(1024)->Arg(4096);
BENCHMARK(BM_Sum)->Arg(1024)->Arg(2048)->Arg(4096)->Iterations(1000);

}  // namespace

int main(int argc, char** argv) try {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
} catch (const perfmon::Error& error) {
  std::fprintf(stderr, "benchmark_counters: %s\n", error.what());
  return 1;
}
