/* libperfmon2 on a hardware PMU (the emulated-PMU rig, or a real machine): PMC0 holds the
 * machine's own event-select word for retired instructions in user mode (PMEVTYPER0_EL0 on arm64,
 * IA32_PERFEVTSEL0 on x86), and the program
 *   - counts loops of exactly 2n and 4n instructions: the PMD0 differences are exactly 2n;
 *   - presets PMD0 a million short of overflowing with PFM_REGFL_OVFL_NOTIFY and runs 20 million
 *     loop instructions in chunks of 2,000, restarting after each PFM_MSG_OVFL: what the masked rest
 *     of a chunk loses is less than what the chunks' own calls add, so 20 messages, each naming PMD0.
 *   - samples with the default format every million user instructions of the same 20 million, each
 *     sample carrying the user cycles (the cycle counter's PMD): 20 samples, a million cycles apart
 *     and what the handler adds.
 * Prints one line per part; exits 77 (skipped) without hardware pairs. */
#define _GNU_SOURCE
#include <errno.h>
#include <perfmon/compat/perfmon2.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "../helpers/exact_loop.h"

#if defined(__aarch64__)
static const uint64_t instructions_user = 0x08 | 1ULL << 31; /* INST_RETIRED, P: not at EL1 */
static const uint64_t cycles_user = 1ULL << 31;              /* PMCCFILTR_EL0: P */
static const uint16_t cycles_pair = 31;                      /* PMCCNTR_EL0 */
#else
static const uint64_t instructions_user = 0xc0 | 1ULL << 16 | 1ULL << 22; /* INST_RETIRED.ANY_P, USR, EN */
static const uint64_t cycles_user = 0x3c | 1ULL << 16 | 1ULL << 22;       /* CPU_CLK_UNHALTED, USR, EN */
static const uint16_t cycles_pair = 1;
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

/* The default format on the hardware counter: a sample every million user instructions of a loop
 * of 20 million, each with the user cycles so far (the cycle counter's PMD as its body). */
static int sample_loop(void) {
  struct {
    pfarg_ctx_t ctx;
    pfm_default_smpl_arg_t arg;
  } request;
  memset(&request, 0, sizeof request);
  const pfm_uuid_t uuid = PFM_DEFAULT_SMPL_UUID;
  memcpy(request.ctx.ctx_smpl_buf_id, uuid, sizeof uuid);
  request.arg.buf_size = 65536;
  if (pfm_create_context(&request.ctx, 1) != 0) return fail("pfm_create_context with the default format");
  const int fd = request.ctx.ctx_fd;
  const pfm_default_smpl_hdr_t* header = mmap(NULL, request.ctx.ctx_smpl_buf_size, PROT_READ, MAP_SHARED, fd, 0);
  if (header == MAP_FAILED) return fail("mapping the buffer");
  pfarg_pmc_t pmcs[2];
  memset(pmcs, 0, sizeof pmcs);
  pmcs[0].reg_value = instructions_user;
  pmcs[0].reg_smpl_pmds[0] = 1ULL << cycles_pair;
  pmcs[1].reg_num = cycles_pair;
  pmcs[1].reg_value = cycles_user;
  pfarg_pmd_t pmd;
  memset(&pmd, 0, sizeof pmd);
  pmd.reg_value = pmd.reg_short_reset = pmd.reg_long_reset = (uint64_t)0 - 1000000;
  pfarg_load_t load = {gettid(), 0};
  if (pfm_write_pmcs(fd, pmcs, 2) != 0 || pfm_write_pmds(fd, &pmd, 1) != 0 || pfm_load_context(fd, &load) != 0 ||
      pfm_start(fd, NULL) != 0)
    return fail("programming the sampling");
  /* A system call every 2,000 instructions: the kernel delivers the overflow signal as the thread
   * next enters it (in the rig, a tight loop would wait for the next timer tick). */
  for (int chunk = 0; chunk < 10000; ++chunk) {
    exact_loop(1000);
    syscall(SYS_getppid);
  }
  pfm_stop(fd);
  /* The samples: where (in this program's code?) and the cycles between them. */
  const char* at = (const char*)header + sizeof *header;
  const uintptr_t loop_start = (uintptr_t)exact_loop;
  int with_ip = 0;
  uint64_t previous = 0, least_step = UINT64_MAX, largest_step = 0;
  for (size_t k = 0; k < header->hdr_count; ++k) {
    pfm_default_smpl_entry_t entry;
    uint64_t cycles;
    memcpy(&entry, at, sizeof entry);
    memcpy(&cycles, at + sizeof entry, sizeof cycles);
    at += sizeof entry + sizeof cycles;
    with_ip += entry.ovfl_pmd == 0 && entry.ip != 0;
    if (k > 0 && cycles - previous < least_step) least_step = cycles - previous;
    if (k > 0 && cycles - previous > largest_step) largest_step = cycles - previous;
    previous = cycles;
  }
  printf("perfmon2 hardware: %zu samples, %d with an IP, cycle steps %llu to %llu\n", (size_t)header->hdr_count,
         with_ip, (unsigned long long)least_step, (unsigned long long)largest_step);
  if (header->hdr_count != 20 || with_ip != 20) { /* what went wrong, for the log */
    at = (const char*)header + sizeof *header;
    for (size_t k = 0; k < header->hdr_count; ++k) {
      pfm_default_smpl_entry_t entry;
      uint64_t cycles;
      memcpy(&entry, at, sizeof entry);
      memcpy(&cycles, at + sizeof entry, sizeof cycles);
      at += sizeof entry + sizeof cycles;
      printf("  sample %zu: pmd %u, ip loop%+lld, cycles %llu, last reset %lld\n", k, entry.ovfl_pmd,
             (long long)(entry.ip - loop_start), (unsigned long long)cycles, (long long)entry.last_reset_val);
    }
    uint64_t value = 0;
    read_pmd0(fd, &value);
    printf("  PMD0 %lld, hdr_overflows %llu\n", (long long)value, (unsigned long long)header->hdr_overflows);
  }
  close(fd);
  return 0;
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
  return sample_loop();
}
