/* SPDX-License-Identifier: Apache-2.0 */
/* What the C tests share: CHECK, which reports a failed condition and goes on, and getppid calls
 * that a tracepoint counts exactly. A test ends with `return checks_result();`. */
#ifndef PERFMON_TESTS_C_CHECKS_H
#define PERFMON_TESTS_C_CHECKS_H

#include <stdio.h>
#include <sys/syscall.h>
#include <unistd.h>

static int failures = 0;

#define CHECK(condition)                                                      \
  do {                                                                        \
    if (!(condition)) {                                                       \
      fprintf(stderr, "%s:%d: failed: %s\n", __FILE__, __LINE__, #condition); \
      ++failures;                                                             \
    }                                                                         \
  } while (0)

/* The raw system call: libc may cache what it returns, never the call itself. */
static inline void call_getppid(int n) {
  for (int i = 0; i < n; ++i) syscall(SYS_getppid);
}

/* Prints "all checks passed" when none failed; the exit status. */
static inline int checks_result(void) {
  if (failures == 0) printf("all checks passed\n");
  return failures == 0 ? 0 : 1;
}

#endif
