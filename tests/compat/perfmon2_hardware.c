/* libperfmon2 on a hardware PMU (the emulated-PMU rig, or a real machine): PMC0 holds the
 * machine's own event-select word for retired instructions in user mode (PMEVTYPER0_EL0 on arm64,
 * IA32_PERFEVTSEL0 on x86), and the program
 *   - counts loops of exactly 2n and 4n instructions: the PMD0 differences are exactly 2n;
 *   - presets PMD0 a million short of overflowing with PFM_REGFL_OVFL_NOTIFY and runs 20 million
 *     loop instructions in chunks of 2,000, restarting after each PFM_MSG_OVFL: what the masked rest
 *     of a chunk loses is less than what the chunks' own calls add, so 20 messages, each naming PMD0.
 * Prints one line per part; exits 77 (skipped) without hardware pairs. */
#define _GNU_SOURCE
#include <errno.h>
#include <perfmon/compat/perfmon2.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "../helpers/exact_loop.h"

#if defined(__aarch64__)
static const uint64_t instructions_user = 0x08 | 1ULL << 31; /* INST_RETIRED, P: not at EL1 */
#else
static const uint64_t instructions_user = 0xc0 | 1ULL << 16 | 1ULL << 22; /* INST_RETIRED.ANY_P, USR, EN */
#endif

static int fail(const char* what) {
  fprintf(stderr, "perfmon2 hardware: %s: %s (%s)\n", what, strerror(errno), pfm_strerror_detail());
  return 1;
}

static int read_pmd0(int fd, uint64_t* value) {
  pfarg_pmd_t pmd;
  memset(&pmd, 0, sizeof pmd);
  if (pfm_read_pmds(fd, &pmd, 1) != 0) return -1;
  *value = pmd.reg_value;
  return 0;
}

/* PMD0 after counting a loop of n iterations between start and stop. */
static int count_loop(int fd, unsigned long n, uint64_t* value) {
  if (pfm_start(fd, NULL) != 0) return -1;
  exact_loop(n);
  if (pfm_stop(fd) != 0) return -1;
  return read_pmd0(fd, value);
}

int main(void) {
  pfarg_pmcinfo_t info;
  memset(&info, 0, sizeof info);
  if (pfm_getinfo_pmcs(&info, 1) != 0) {
    printf("skipped: no hardware PMC0 (%s)\n", pfm_strerror_detail());
    return 77;
  }
  pfarg_ctx_t ctx;
  memset(&ctx, 0, sizeof ctx);
  if (pfm_create_context(&ctx, 1) != 0) return fail("pfm_create_context");
  const int fd = ctx.ctx_fd;
  pfarg_pmc_t pmc;
  memset(&pmc, 0, sizeof pmc);
  pmc.reg_value = instructions_user;
  pfarg_load_t load = {gettid(), 0};
  if (pfm_write_pmcs(fd, &pmc, 1) != 0 || pfm_load_context(fd, &load) != 0) return fail("programming PMC0");

  const unsigned long n = 1000000;
  uint64_t before, after_n, after_3n;
  if (read_pmd0(fd, &before) != 0 || count_loop(fd, n, &after_n) != 0 || count_loop(fd, 2 * n, &after_3n) != 0)
    return fail("counting");
  printf("perfmon2 hardware: PMC0 type %u, loop differences %llu (2n = %lu)\n", info.reg_type,
         (unsigned long long)((after_3n - after_n) - (after_n - before)), 2 * n);

  /* Overflows: PMD0 at -1,000,000 overflows after a million user instructions. */
  if (pfm_unload_context(fd) != 0) return fail("unloading");
  pfarg_pmd_t pmd;
  memset(&pmd, 0, sizeof pmd);
  pmd.reg_value = pmd.reg_long_reset = (uint64_t)0 - 1000000;
  pmc.reg_flags = PFM_REGFL_OVFL_NOTIFY;
  if (pfm_write_pmcs(fd, &pmc, 1) != 0 || pfm_write_pmds(fd, &pmd, 1) != 0 || pfm_load_context(fd, &load) != 0 ||
      pfm_start(fd, NULL) != 0)
    return fail("programming the overflow");
  int messages = 0, naming_pmd0 = 0;
  for (int chunk = 0; chunk < 10000; ++chunk) {
    exact_loop(1000);
    pfm_msg_t message;
    if (recv(fd, &message, sizeof message, MSG_DONTWAIT) != (ssize_t)sizeof message) continue;
    ++messages;
    naming_pmd0 += message.msg_type == PFM_MSG_OVFL && message.pfm_ovfl_msg.msg_ovfl_pmds[0] == 1;
    if (pfm_restart(fd) != 0) return fail("pfm_restart");
  }
  pfm_stop(fd);
  printf("perfmon2 hardware: %d overflow messages, %d naming PMD0\n", messages, naming_pmd0);
  close(fd);
  return 0;
}
