/* SPDX-License-Identifier: Apache-2.0 */
/* What libperfmon2 costs (docs/benchmarks.md), against the same run's baseline: a getppid call
 * alone, counted by a context, overflowing at every call (the handler's short reset), and sampled
 * at every call into the default format's buffer; reading a PMD; an mmap and munmap of an anonymous
 * page, which go through libperfmon2's mmap. Built twice: perfmon2_bench, and perfmon2_bench_plain
 * without libperfmon2 (the baselines only).
 *
 *   perfmon2_bench [ITERATIONS]   prints nanoseconds per call, the median of 9 rounds
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "c_timing.h"

#ifdef WITH_PERFMON2
#include <perfmon/compat/perfmon2.h>
#endif

static void call_getppid(void* context) {
  (void)context;
  syscall(SYS_getppid);
}

static void map_page(void* context) {
  (void)context;
  munmap(mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0), 4096);
}

#ifdef WITH_PERFMON2
#define GETPPID_PMC 32

static uint64_t getppid_value;

static void read_pmd(void* context) {
  pfarg_pmd_t pmd;
  memset(&pmd, 0, sizeof pmd);
  pmd.reg_num = GETPPID_PMC;
  pfm_read_pmds(*(int*)context, &pmd, 1);
}

/* A context on this thread counting getppid on PMC32: PMD32 starting at `value` with that short
 * reset, the default format's buffer of `buffer_bytes` when not 0. Loaded and started. */
static int context_counting(uint64_t value, size_t buffer_bytes) {
  struct {
    pfarg_ctx_t ctx;
    pfm_default_smpl_arg_t arg;
  } request;
  memset(&request, 0, sizeof request);
  if (buffer_bytes != 0) {
    const pfm_uuid_t uuid = PFM_DEFAULT_SMPL_UUID;
    memcpy(request.ctx.ctx_smpl_buf_id, uuid, sizeof uuid);
    request.arg.buf_size = buffer_bytes;
  }
  pfarg_pmc_t pmc;
  memset(&pmc, 0, sizeof pmc);
  pmc.reg_num = GETPPID_PMC;
  pmc.reg_value = getppid_value;
  pfarg_pmd_t pmd;
  memset(&pmd, 0, sizeof pmd);
  pmd.reg_num = GETPPID_PMC;
  pmd.reg_value = pmd.reg_short_reset = value;
  pfarg_load_t load = {gettid(), 0};
  if (pfm_create_context(&request.ctx, 1) != 0 || pfm_write_pmcs(request.ctx.ctx_fd, &pmc, 1) != 0 ||
      pfm_write_pmds(request.ctx.ctx_fd, &pmd, 1) != 0 || pfm_load_context(request.ctx.ctx_fd, &load) != 0 ||
      pfm_start(request.ctx.ctx_fd, NULL) != 0) {
    fprintf(stderr, "perfmon2_bench: %s\n", pfm_strerror_detail());
    return -1;
  }
  return request.ctx.ctx_fd;
}

static int measure_contexts(long iterations) {
  if (pfm_virtual_pmc_value("syscalls:sys_enter_getppid", &getppid_value) != 0) {
    printf("skipped: %s\n", pfm_strerror_detail());
    return 0;
  }
  int fd = context_counting(0, 0);
  if (fd < 0) return 1;
  printf("getppid, counted: %.1f ns\n", measure(call_getppid, NULL, iterations));
  printf("pfm_read_pmds of one PMD: %.1f ns\n", measure(read_pmd, &fd, iterations));
  close(fd);
  fd = context_counting((uint64_t)0 - 1, 0);
  if (fd < 0) return 1;
  printf("getppid, an overflow and a short reset each: %.1f ns\n", measure(call_getppid, NULL, iterations));
  close(fd);
  /* Room for every sample of the 9 rounds: 40-byte entries, no body. */
  fd = context_counting((uint64_t)0 - 1, (size_t)(9 * iterations + 1000) * 40);
  if (fd < 0) return 1;
  printf("getppid, a default-format sample each: %.1f ns\n", measure(call_getppid, NULL, iterations));
  close(fd);
  return 0;
}
#endif

int main(int argc, char** argv) {
  const long iterations = argc > 1 ? atol(argv[1]) : 100000;
  printf("getppid: %.1f ns\n", measure(call_getppid, NULL, iterations));
  printf("mmap+munmap of an anonymous page: %.1f ns\n", measure(map_page, NULL, iterations));
#ifdef WITH_PERFMON2
  return measure_contexts(iterations);
#else
  return 0;
#endif
}
