/* SPDX-License-Identifier: Apache-2.0 */
/* What the C benchmarks share: an operation's cost in ns per call, the median of 9 rounds. */
#ifndef PERFMON_BENCH_C_TIMING_H
#define PERFMON_BENCH_C_TIMING_H

#include <stdlib.h>
#include <time.h>

static double now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

static int compare_doubles(const void* a, const void* b) {
  const double x = *(const double*)a, y = *(const double*)b;
  return (x > y) - (x < y);
}

typedef void (*operation)(void* context);

/* The median over 9 rounds of `iterations` calls, in ns per call. */
static double measure(operation op, void* context, long iterations) {
  double rounds[9];
  for (int r = 0; r < 9; ++r) {
    const double start = now_ns();
    for (long i = 0; i < iterations; ++i) op(context);
    rounds[r] = (now_ns() - start) / (double)iterations;
  }
  qsort(rounds, 9, sizeof *rounds, compare_doubles);
  return rounds[4];
}

#endif
