/* SPDX-License-Identifier: Apache-2.0 */
/* A loop of exactly 2n instructions (n > 0) on x86-64 and arm64: what the hardware tests count. */
#ifndef PERFMON_TESTS_EXACT_LOOP_H
#define PERFMON_TESTS_EXACT_LOOP_H

__attribute__((noinline)) static void exact_loop(unsigned long n) {
  if (n == 0) return;
#if defined(__x86_64__)
  __asm__ volatile("1: dec %0\n\tjnz 1b" : "+r"(n));
#elif defined(__aarch64__)
  __asm__ volatile("1: subs %0, %0, #1\n\tb.ne 1b" : "+r"(n) : : "cc");
#endif
}

#endif
