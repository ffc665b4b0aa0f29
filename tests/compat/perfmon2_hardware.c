/* SPDX-License-Identifier: Apache-2.0 */
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
 *   - counts another thread's loop of 2n from outside, until its PFM_MSG_END;
 *   - counts the CPU system-wide around a loop of 2n;
 *   - switches two sets after a million and half a million instructions: about 2:1 counts.
 * Prints one line per part; exits 77 (skipped) without hardware pairs. */
#define _GNU_SOURCE
#include <errno.h>
#include <perfmon/perfmon.h> /* perfmon2's name: pkg-config libperfmon2 adds its directory */
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "../helpers/exact_loop.h"
#include "../helpers/perfmon2_samples.h"

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

/* Where the PMU interrupt left a thread that overflowed a user-mode counter: at the system call
 * (QEMU raises the interrupt as the thread enters the kernel), or already in the kernel's entry
 * code, whose address the kernel records then (the top 16 bits set on arm64). */
static int at_kernel_entry(uint64_t ip) {
  return ip - (uintptr_t)syscall < 64 || ip >> 48 == 0xffff;
}

/* A context with the default format's 64 KiB buffer, mapped at *header; -1 if not. */
static int sampling_context(const pfm_default_smpl_hdr_t** header) {
  struct {
    pfarg_ctx_t ctx;
    pfm_default_smpl_arg_t arg;
  } request;
  memset(&request, 0, sizeof request);
  const pfm_uuid_t uuid = PFM_DEFAULT_SMPL_UUID;
  memcpy(request.ctx.ctx_smpl_buf_id, uuid, sizeof uuid);
  request.arg.buf_size = 65536;
  if (pfm_create_context(&request.ctx, 1) != 0) return -1;
  *header = mmap(NULL, request.ctx.ctx_smpl_buf_size, PROT_READ, MAP_SHARED, request.ctx.ctx_fd, 0);
  return *header == MAP_FAILED ? -1 : request.ctx.ctx_fd;
}

/* The default format on the hardware counter: a sample every million user instructions of a loop
 * of 20 million, each with the user cycles so far (the cycle counter's PMD as its body). */
static int sample_loop(void) {
  const pfm_default_smpl_hdr_t* header;
  const int fd = sampling_context(&header);
  if (fd < 0) return fail("a context with the default format, its buffer mapped");
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
  const char* at = first_sample(header);
  int with_ip = 0, at_call = 0;
  uint64_t previous = 0, least_step = UINT64_MAX, largest_step = 0;
  for (size_t k = 0; k < header->hdr_count; ++k) {
    pfm_default_smpl_entry_t entry;
    uint64_t cycles;
    next_sample(&at, &entry, &cycles, 1);
    with_ip += entry.ovfl_pmd == 0 && entry.ip != 0;
    at_call += at_kernel_entry(entry.ip);
    if (k > 0 && cycles - previous < least_step) least_step = cycles - previous;
    if (k > 0 && cycles - previous > largest_step) largest_step = cycles - previous;
    previous = cycles;
  }
  printf("perfmon2 hardware: %zu samples, %d with an IP, cycle steps %llu to %llu\n", (size_t)header->hdr_count,
         with_ip, (unsigned long long)least_step, (unsigned long long)largest_step);
  /* The kernel's record says where the PMU interrupted: QEMU raises the overflow interrupt as the
   * thread next enters the kernel (its PMU updates counters lazily), so in the kernel's entry code
   * (on a real PMU it would be in the loop). */
  printf("perfmon2 hardware: sample IPs: %d of %zu at kernel entry\n", at_call, (size_t)header->hdr_count);
  if (header->hdr_count != 20 || with_ip != 20 || at_call != 20) { /* what went wrong, for the log */
    printf("  syscall at %#llx\n", (unsigned long long)(uintptr_t)syscall);
    at = first_sample(header);
    for (size_t k = 0; k < header->hdr_count; ++k) {
      pfm_default_smpl_entry_t entry;
      uint64_t cycles;
      next_sample(&at, &entry, &cycles, 1);
      printf("  sample %zu: pmd %u, ip %#llx, cycles %llu, last reset %lld\n", k, entry.ovfl_pmd,
             (unsigned long long)entry.ip, (unsigned long long)cycles, (long long)entry.last_reset_val);
    }
    uint64_t value = 0;
    read_pmd0(fd, &value);
    printf("  PMD0 %lld, hdr_overflows %llu\n", (long long)value, (unsigned long long)header->hdr_overflows);
  }
  close(fd);
  return 0;
}

/* A context with PMC0 counting user instructions. */
static int instructions_context(uint32_t flags) {
  pfarg_ctx_t ctx;
  memset(&ctx, 0, sizeof ctx);
  ctx.ctx_flags = flags;
  if (pfm_create_context(&ctx, 1) != 0) return -1;
  pfarg_pmc_t pmc;
  memset(&pmc, 0, sizeof pmc);
  pmc.reg_value = instructions_user;
  return pfm_write_pmcs(ctx.ctx_fd, &pmc, 1) == 0 ? ctx.ctx_fd : -1;
}

/* ---- Another thread, counted from outside until it exits ---------------------------------------- */

static int go[2];
static pid_t worker_tid;

static void* worker(void* argument) {
  (void)argument;
  __atomic_store_n(&worker_tid, gettid(), __ATOMIC_RELEASE);
  char byte;
  if (read(go[0], &byte, 1) == 1) exact_loop(1000000);
  return NULL;
}

static int attach(void) {
  const int fd = instructions_context(0);
  pthread_t thread;
  if (fd < 0 || pipe(go) != 0 || pthread_create(&thread, NULL, worker, NULL) != 0) return fail("attach setup");
  while (__atomic_load_n(&worker_tid, __ATOMIC_ACQUIRE) == 0) sched_yield();
  pfarg_load_t load = {worker_tid, 0};
  if (pfm_load_context(fd, &load) != 0 || pfm_start(fd, NULL) != 0) return fail("attaching");
  if (write(go[1], "g", 1) != 1) return fail("starting the worker");
  struct pollfd wait = {fd, POLLIN, 0};
  pfm_msg_t message;
  const int ended = poll(&wait, 1, 30000) == 1 && read(fd, &message, sizeof message) == (ssize_t)sizeof message &&
                    message.msg_type == PFM_MSG_END;
  uint64_t counted = 0;
  read_pmd0(fd, &counted);
  pthread_join(thread, NULL);
  printf("perfmon2 hardware: attached: %s, %llu user instructions (2n = 2000000)\n", ended ? "end message" : "no end",
         (unsigned long long)counted);
  close(fd);
  return 0;
}

/* Another thread's loop of 1,000 runs of 2,000 instructions, each followed by a system call (where
 * QEMU raises the overflow interrupt). */
static void* chunked_worker(void* argument) {
  (void)argument;
  __atomic_store_n(&worker_tid, gettid(), __ATOMIC_RELEASE);
  char byte;
  if (read(go[0], &byte, 1) == 1)
    for (int chunk = 0; chunk < 1000; ++chunk) {
      exact_loop(1000);
      syscall(SYS_getppid);
    }
  return NULL;
}

/* The default format samples another thread: the library's overflow thread takes its overflows,
 * and each sample's IP is the kernel's record of where the worker was. */
static int attach_sampling(void) {
  const pfm_default_smpl_hdr_t* header;
  const int fd = sampling_context(&header);
  if (fd < 0) return fail("a context with the default format, its buffer mapped");
  pfarg_pmc_t pmc;
  memset(&pmc, 0, sizeof pmc);
  pmc.reg_value = instructions_user;
  pfarg_pmd_t pmd;
  memset(&pmd, 0, sizeof pmd);
  pmd.reg_value = pmd.reg_short_reset = pmd.reg_long_reset = (uint64_t)0 - 100000;
  worker_tid = 0;
  pthread_t thread;
  if (pipe(go) != 0 || pthread_create(&thread, NULL, chunked_worker, NULL) != 0) return fail("sampling setup");
  while (__atomic_load_n(&worker_tid, __ATOMIC_ACQUIRE) == 0) sched_yield();
  pfarg_load_t load = {worker_tid, 0};
  if (pfm_write_pmcs(fd, &pmc, 1) != 0 || pfm_write_pmds(fd, &pmd, 1) != 0 || pfm_load_context(fd, &load) != 0 ||
      pfm_start(fd, NULL) != 0)
    return fail("sampling another thread");
  if (write(go[1], "g", 1) != 1) return fail("starting the worker");
  struct pollfd wait = {fd, POLLIN, 0};
  pfm_msg_t message;
  const int ended = poll(&wait, 1, 30000) == 1 && read(fd, &message, sizeof message) == (ssize_t)sizeof message &&
                    message.msg_type == PFM_MSG_END;
  pthread_join(thread, NULL);
  /* Each sample is the worker's, where the PMU interrupted it: at its next kernel entry, as a rule;
   * in its loop where the interrupt was taken on the way back from another (a timer's). */
  const char* at = first_sample(header);
  int theirs = 0, at_entry = 0;
  for (size_t k = 0; k < header->hdr_count; ++k) {
    pfm_default_smpl_entry_t entry;
    next_sample(&at, &entry, NULL, 0);
    const int in_loop = entry.ip - (uintptr_t)exact_loop < 32;
    theirs += entry.tid == worker_tid && (at_kernel_entry(entry.ip) || in_loop);
    at_entry += entry.tid == worker_tid && at_kernel_entry(entry.ip);
  }
  printf("perfmon2 hardware: another thread: %s, %zu samples, %d its own (%d at its kernel entries)\n",
         ended ? "end message" : "no end", (size_t)header->hdr_count, theirs, at_entry);
  if (theirs != 20) { /* where they were, for the log */
    printf("  syscall at %#llx, the loop at %#llx, the worker %d\n", (unsigned long long)(uintptr_t)syscall,
           (unsigned long long)(uintptr_t)exact_loop, (int)worker_tid);
    at = first_sample(header);
    for (size_t k = 0; k < header->hdr_count; ++k) {
      pfm_default_smpl_entry_t entry;
      next_sample(&at, &entry, NULL, 0);
      printf("  sample %zu: tid %d, ip %#llx\n", k, (int)entry.tid, (unsigned long long)entry.ip);
    }
  }
  close(fd);
  close(go[0]);
  close(go[1]);
  return 0;
}

/* ---- The CPU, system-wide (a one-CPU guest: the loop is most of what runs) ---------------------- */

static int system_wide(void) {
  const int fd = instructions_context(PFM_FL_SYSTEM_WIDE);
  pfarg_load_t load = {gettid(), 0};
  uint64_t counted = 0;
  if (fd < 0 || pfm_load_context(fd, &load) != 0 || count_loop(fd, 1000000, &counted) != 0) return fail("system-wide");
  printf("perfmon2 hardware: system-wide: %llu user instructions (2n = 2000000)\n", (unsigned long long)counted);
  close(fd);
  return 0;
}

/* ---- Sets switched by overflows of the instruction counter --------------------------------------- */

/* Set 0 gives way after a million user instructions, set 1 after half a million; PMD1 counts each
 * set's turns: over 30 million, set 0 counts about twice what set 1 does. */
static int switching(void) {
  pfarg_ctx_t ctx;
  memset(&ctx, 0, sizeof ctx);
  if (pfm_create_context(&ctx, 1) != 0) return fail("pfm_create_context for sets");
  const int fd = ctx.ctx_fd;
  pfarg_setdesc_t sets[2];
  memset(sets, 0, sizeof sets);
  sets[0].set_flags = sets[1].set_flags = PFM_SETFL_OVFL_SWITCH;
  sets[1].set_id = 1;
  if (pfm_create_evtsets(fd, sets, 2) != 0) return fail("pfm_create_evtsets");
  for (uint16_t set = 0; set < 2; ++set) {
    pfarg_pmc_t pmcs[2];
    memset(pmcs, 0, sizeof pmcs);
    pfarg_pmd_t trigger;
    memset(&trigger, 0, sizeof trigger);
    pmcs[0].reg_set = pmcs[1].reg_set = trigger.reg_set = set;
    pmcs[0].reg_value = pmcs[1].reg_value = instructions_user;
    pmcs[1].reg_num = 1;
    trigger.reg_value = trigger.reg_short_reset = (uint64_t)0 - (set == 0 ? 1000000 : 500000);
    trigger.reg_ovflsw_thres = 1;
    if (pfm_write_pmcs(fd, pmcs, 2) != 0 || pfm_write_pmds(fd, &trigger, 1) != 0) return fail("programming sets");
  }
  pfarg_load_t load = {gettid(), 0};
  if (pfm_load_context(fd, &load) != 0 || pfm_start(fd, NULL) != 0) return fail("loading sets");
  for (int chunk = 0; chunk < 15000; ++chunk) {
    exact_loop(1000);
    syscall(SYS_getppid); /* the overflow signal comes as the thread enters the kernel */
  }
  pfm_stop(fd);
  pfarg_pmd_t counts[2];
  memset(counts, 0, sizeof counts);
  counts[0].reg_num = counts[1].reg_num = 1;
  counts[1].reg_set = 1;
  pfarg_setinfo_t info[2];
  memset(info, 0, sizeof info);
  info[1].set_id = 1;
  if (pfm_read_pmds(fd, counts, 2) != 0 || pfm_getinfo_evtsets(fd, info, 2) != 0) return fail("reading sets");
  printf("perfmon2 hardware: sets: %llu and %llu user instructions, %llu and %llu runs\n",
         (unsigned long long)counts[0].reg_value, (unsigned long long)counts[1].reg_value,
         (unsigned long long)info[0].set_runs, (unsigned long long)info[1].set_runs);
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
  return sample_loop() || attach() || attach_sampling() || system_wide() || switching();
}
