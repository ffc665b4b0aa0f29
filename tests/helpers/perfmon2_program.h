/* SPDX-License-Identifier: Apache-2.0 */
/* What the libperfmon2 tests share: a context, its registers programmed to count getppid calls,
 * PMDs read back, a context loaded on the calling thread, CPU 0, messages. */
#ifndef PERFMON_TEST_PERFMON2_PROGRAM_H
#define PERFMON_TEST_PERFMON2_PROGRAM_H

#define _GNU_SOURCE
#include <errno.h>
#include <perfmon/compat/perfmon2.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define GETPPID_PMC 32 /* the first virtual pair */
#define SECOND_PMC 33

/* The PMC value that counts getppid calls (main sets it). */
static uint64_t getppid_value;

static inline int new_context(uint32_t flags) {
  pfarg_ctx_t ctx;
  memset(&ctx, 0, sizeof ctx);
  ctx.ctx_flags = flags;
  if (pfm_create_context(&ctx, 1) != 0) {
    fprintf(stderr, "pfm_create_context: %s (%s)\n", strerror(errno), pfm_strerror_detail());
    return -1;
  }
  return ctx.ctx_fd;
}

/* PMC n counts getppid calls; PMD n starts at `value`. */
static inline int program(int fd, uint16_t set, unsigned n, uint32_t flags, uint64_t value, uint64_t long_reset,
                          uint64_t short_reset) {
  pfarg_pmc_t pmc;
  memset(&pmc, 0, sizeof pmc);
  pmc.reg_num = (uint16_t)n;
  pmc.reg_set = set;
  pmc.reg_flags = flags;
  pmc.reg_value = getppid_value;
  pfarg_pmd_t pmd;
  memset(&pmd, 0, sizeof pmd);
  pmd.reg_num = (uint16_t)n;
  pmd.reg_set = set;
  pmd.reg_value = value;
  pmd.reg_long_reset = long_reset;
  pmd.reg_short_reset = short_reset;
  if (pfm_write_pmcs(fd, &pmc, 1) != 0 || pfm_write_pmds(fd, &pmd, 1) != 0) {
    fprintf(stderr, "programming PMC%u: %s (%s)\n", n, strerror(errno), pfm_strerror_detail());
    return -1;
  }
  return 0;
}

static inline uint64_t read_pmd(int fd, uint16_t set, unsigned n) {
  pfarg_pmd_t pmd;
  memset(&pmd, 0, sizeof pmd);
  pmd.reg_num = (uint16_t)n;
  pmd.reg_set = set;
  if (pfm_read_pmds(fd, &pmd, 1) != 0) {
    fprintf(stderr, "pfm_read_pmds: %s (%s)\n", strerror(errno), pfm_strerror_detail());
    return UINT64_MAX;
  }
  return pmd.reg_value;
}

static inline int load_self(int fd, uint16_t set) {
  pfarg_load_t load = {gettid(), set};
  const int result = pfm_load_context(fd, &load);
  if (result != 0) fprintf(stderr, "pfm_load_context: %s (%s)\n", strerror(errno), pfm_strerror_detail());
  return result;
}

/* Runs the calling thread on CPU 0 only, keeping its CPUs in *saved: 1, or 0 (saying so) if not. */
static inline int run_on_cpu0(cpu_set_t* saved, const char* test) {
  cpu_set_t one;
  sched_getaffinity(0, sizeof *saved, saved);
  CPU_ZERO(&one);
  CPU_SET(0, &one);
  if (sched_setaffinity(0, sizeof one, &one) == 0) return 1;
  printf("%s: skipped, cannot run on CPU 0\n", test);
  return 0;
}

/* A message waiting on the descriptor, without blocking: 1 and the message, or 0. */
static inline int next_message(int fd, pfm_msg_t* message) {
  return recv(fd, message, sizeof *message, MSG_DONTWAIT) == (ssize_t)sizeof *message;
}

#endif
