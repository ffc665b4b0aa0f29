/* SPDX-License-Identifier: Apache-2.0 */
/* The example project of docs/bench.md: a program of two functions whose work is fixed, so that
 * perfmon bench counts it exactly. Built twice by the suite: as it is (the baseline), and with
 * -DMORE_WORK, the "commit" that makes parse_digits do 0.1 % more work, which perfmon bench's gate
 * catches and --explain names. */
#include <stdio.h>
#include <stdlib.h>

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

int main(int argc, char** argv) {
  const unsigned long count = argc > 1 ? strtoul(argv[1], NULL, 10) : 100000;
  parse_digits(count);
  sum_squares(count);
  printf("checksum %lu\n", checksum);
  return 0;
}
