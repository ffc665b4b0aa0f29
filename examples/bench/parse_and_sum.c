/* SPDX-License-Identifier: Apache-2.0 */
/* The example project of docs/bench.md: a program that runs its two functions (parse_and_sum.h)
 * over the numbers up to its argument. Built twice by the suite: as it is (the baseline), and with
 * -DMORE_WORK (the regression perfmon bench's gate catches and --explain names). */
#include <stdio.h>
#include <stdlib.h>

#include "parse_and_sum.h"

int main(int argc, char** argv) {
  const unsigned long count = argc > 1 ? strtoul(argv[1], NULL, 10) : 100000;
  parse_digits(count);
  sum_squares(count);
  printf("checksum %lu\n", checksum);
  return 0;
}
