/* SPDX-License-Identifier: Apache-2.0 */
/* The example project's two functions (docs/bench.md), whose work is fixed, so that perfmon bench
 * counts it exactly: its program (parse_and_sum.c) and its Google Benchmark binary
 * (benchmarks.cpp) both run them. Built with -DMORE_WORK, the "commit" that makes parse_digits do
 * 0.1 % more work, which perfmon bench's gate catches and --explain names. */
#ifndef PERFMON_EXAMPLE_PARSE_AND_SUM_H
#define PERFMON_EXAMPLE_PARSE_AND_SUM_H

#ifdef MORE_WORK
#define EXTRA(n) ((n) / 1000)
#else
#define EXTRA(n) 0
#endif

static unsigned long checksum;

/* Each number's decimal digits summed: a loop of divisions. */
__attribute__((noinline)) static void parse_digits(unsigned long count) {
  for (unsigned long i = 1; i <= count + EXTRA(count); ++i)
    for (unsigned long n = i; n != 0; n /= 10) checksum += n % 10;
}

/* The squares of the numbers summed. */
__attribute__((noinline)) static void sum_squares(unsigned long count) {
  for (unsigned long i = 1; i <= count; ++i) checksum += i * i;
}

#endif
