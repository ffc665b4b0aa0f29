// SPDX-License-Identifier: Apache-2.0
// A program to record: spins for about the given milliseconds of work and prints how long the work
// took, in milliseconds, so that a recorder's cost is seen from inside the recorded program.
//   timed_spin ITERATIONS
#include <time.h>

#include <cstdio>
#include <cstdlib>

namespace {
double now_ms() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<double>(ts.tv_sec) * 1e3 + static_cast<double>(ts.tv_nsec) / 1e6;
}
}  // namespace

int main(int argc, char** argv) {
  const unsigned long iterations = argc > 1 ? std::strtoul(argv[1], nullptr, 10) : 100'000'000;
  const double start = now_ms();
  volatile unsigned long sink = 0;
  for (unsigned long i = 0; i < iterations; ++i) sink = sink + i;
  std::printf("%.3f\n", now_ms() - start);
  return 0;
}
