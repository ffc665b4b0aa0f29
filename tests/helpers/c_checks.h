/* SPDX-License-Identifier: Apache-2.0 */
/* What the C tests share: CHECK, which reports a failed condition and goes on; REQUIRE, for a
 * condition what follows cannot do without, which ends the test failed; getppid calls that a
 * tracepoint counts exactly, and the check that this user may read that tracepoint. A test ends
 * with `return checks_result();`. */
#ifndef PERFMON_TESTS_C_CHECKS_H
#define PERFMON_TESTS_C_CHECKS_H

#include <stdio.h>
#include <stdlib.h>
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

/* Prints "all checks passed" when none failed; the exit status. */
static inline int checks_result(void) {
  if (failures == 0) printf("all checks passed\n");
  return failures == 0 ? 0 : 1;
}

#define REQUIRE(condition)                                                                       \
  do {                                                                                           \
    if (!(condition)) {                                                                          \
      fprintf(stderr, "%s:%d: failed: %s (the test cannot go on)\n", __FILE__, __LINE__, #condition); \
      ++failures;                                                                                \
      exit(checks_result());                                                                     \
    }                                                                                            \
  } while (0)

/* The tests count syscalls:sys_enter_getppid: where this user may not read its tracefs entry (a
 * user other than root, tracefs 0700), a test cannot run; it says why and exits 77, which ctest
 * counts as skipped (SKIP_RETURN_CODE). */
static inline void require_getppid_tracepoint(void) {
  if (access("/sys/kernel/tracing/events/syscalls/sys_enter_getppid/id", R_OK) == 0 ||
      access("/sys/kernel/debug/tracing/events/syscalls/sys_enter_getppid/id", R_OK) == 0)
    return;
  printf("skipped: this user may not read the tracepoint syscalls:sys_enter_getppid that the test counts (tracefs "
         "is root's only): run it as root, or let others read tracefs (sudo chmod go+rx /sys/kernel/tracing)\n");
  exit(77);
}

/* The raw system call: libc may cache what it returns, never the call itself. */
static inline void call_getppid(int n) {
  for (int i = 0; i < n; ++i) syscall(SYS_getppid);
}

#endif
