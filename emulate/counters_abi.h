/* SPDX-License-Identifier: Apache-2.0 */
/* The counters file: how perfmon's QEMU plugin hands its counts to the library (docs/emulated.md).
 * The library creates the file and its header; every QEMU process of the command (the first, those
 * it forks, those that follow its execs) maps it shared and adds to it, so the library reads the
 * whole command's counts at any time, without waiting for the command to end. Counts are added
 * and read with atomic operations (the __atomic builtins in C, std::atomic_ref in C++). The layout
 * is an ABI between the plugin and the library: a change of it changes the version. */
#ifndef PERFMON_EMULATE_COUNTERS_ABI_H
#define PERFMON_EMULATE_COUNTERS_ABI_H

#include <stdint.h>

#define PERFMON_EMULATE_MAGIC 0x53544e554f43504dULL /* "MPCOUNTS", little-endian */
#define PERFMON_EMULATE_VERSION 7
/* Each guest thread counts in a slot it owns (slot 0, shared with atomic adds, when all are
 * taken). A slot has cache lines of its own: threads never share a line. */
#define PERFMON_EMULATE_SLOTS 256
#define PERFMON_EMULATE_PATH_MAX 256

/* What the threads of one slot executed. Branches are counted by kind, decoded from the
 * instructions at translation (docs/emulated.md); loads and stores only with memory=on. */
struct perfmon_emulate_slot {
  uint64_t instructions;
  uint64_t conditional_branches; /* jcc, loop, jrcxz; b.cond, cbz, tbz */
  uint64_t direct_branches;      /* jmp and call to an immediate address; b, bl */
  uint64_t indirect_branches;    /* jmp and call through a register or memory, ret; br, blr, ret */
  uint64_t loads;
  uint64_t stores;
  uint64_t owner;         /* the host thread id that counts here; 0: free. Slot 0 has none: it is shared */
  uint64_t branch_misses; /* with predict=on: conditional and indirect branches the model mispredicted */
  /* With caches=on, the cache model's misses (docs/emulated.md): */
  uint64_t l1d_load_misses;       /* loads that missed L1D (at most one per load) */
  uint64_t l1d_store_misses;      /* stores that missed L1D */
  uint64_t l1i_misses;            /* instruction fetches (one per line a block runs through) that missed L1I */
  uint64_t ll_load_misses;        /* L1D load misses that missed the last level too */
  uint64_t ll_store_misses;       /* L1D store misses that missed the last level too */
  uint64_t ll_instruction_misses; /* L1I misses that missed the last level too */
  /* With samples=FILE: the samples its threads took, and of those, the ones not written (the file
   * could not take them: its disk full, say). */
  uint64_t samples;
  uint64_t samples_lost;
};

/* One cache of the model: size bytes, ways per set, line bytes (a power of two). */
struct perfmon_emulate_cache {
  uint64_t size;
  uint32_t ways;
  uint32_t line;
};

struct perfmon_emulate_counters {
  /* Written by the library before the command starts. */
  uint64_t magic;
  uint32_t version;
  uint32_t slots;
  /* Written by the plugin. */
  uint64_t processes;          /* QEMU processes started: the first, forked ones, and one per exec followed */
  uint64_t threads;            /* guest threads started: each process's first included */
  uint64_t execs_followed;     /* execs the plugin ran under QEMU again */
  uint64_t execs_not_followed; /* execs that ran natively, uncounted (another architecture...) */
  char first_not_followed[PERFMON_EMULATE_PATH_MAX]; /* the first of those, and why */
  char target[32];                                   /* QEMU's guest architecture ("x86_64") */
  int32_t plugin_api_version;                        /* the plugin API version in use */
  int32_t reserved;
  /* Written by the library: the caches the model has with caches=on. */
  struct perfmon_emulate_cache l1i, l1d, ll;
  uint8_t padding[64 - (8 + 4 + 4 + 4 * 8 + PERFMON_EMULATE_PATH_MAX + 32 + 4 + 4 + 3 * 16) % 64];
  struct perfmon_emulate_slot slot[PERFMON_EMULATE_SLOTS];
};

/* A thread's own counts, for regions (docs/emulated.md, "Regions"): a program on the emulated CPU
 * reads what its calling thread has executed so far with a system call that no kernel has,
 *
 *   syscall(PERFMON_EMULATE_READ_SYSCALL, &thread_read, PERFMON_EMULATE_VERSION,
 *           sizeof thread_read, PERFMON_EMULATE_READ_MAGIC)
 *
 * which the plugin answers before QEMU returns ENOSYS: it writes magic and version, and when the
 * version is its own, flags and counts too. Natively the kernel returns ENOSYS and writes nothing.
 * The counts include every instruction up to the system call's. The library makes the call only
 * where PERFMON_EMULATED_CPU is in the environment (EmulatedWorkload sets it), so that no sandbox
 * sees an unknown system call from a program run natively. */
#define PERFMON_EMULATE_READ_SYSCALL 0x50464dL         /* "MFP": far above any system call number */
#define PERFMON_EMULATE_READ_MAGIC 0x444145524d5450ULL /* "PTMREAD" */
#define PERFMON_EMULATE_COUNTS_BRANCHES 1u             /* branches=on */
#define PERFMON_EMULATE_COUNTS_MEMORY 2u               /* memory=on */
#define PERFMON_EMULATE_COUNTS_PREDICTION 4u           /* predict=on */
#define PERFMON_EMULATE_COUNTS_CACHES 8u               /* caches=on */
#define PERFMON_EMULATE_SHARED_SLOT 0x100u             /* the thread counts in slot 0 with others: not its own counts */

struct perfmon_emulate_thread_read {
  uint64_t magic;                     /* PERFMON_EMULATE_READ_MAGIC once the plugin answered */
  uint32_t version;                   /* the plugin's PERFMON_EMULATE_VERSION */
  uint32_t flags;                     /* PERFMON_EMULATE_COUNTS_* and PERFMON_EMULATE_SHARED_SLOT */
  struct perfmon_emulate_slot counts; /* owner: the host thread id */
};

/* Sampling (docs/emulated.md, "Sampling"): with samples=FILE and period=N, every thread takes a
 * sample each N instructions it executes, and the plugin appends perf's own records to FILE, as
 * the kernel writes them into a ring (linux/perf_event.h), of one event whose attr has
 *
 *   sample_type = PERFMON_EMULATE_SAMPLE_TYPE (| PERF_SAMPLE_CALLCHAIN with callchains=on),
 *   sample_id_all = 1 (the side-band records end with pid, tid and time)
 *
 * PERF_RECORD_SAMPLE: ip, pid and tid, time (CLOCK_MONOTONIC), period, and with callchains=on the
 * callchain: PERF_CONTEXT_USER, the ip, then the return addresses of the thread's shadow stack,
 * innermost first (at most PERFMON_EMULATE_CALLCHAIN_MAX entries in all).
 * PERF_RECORD_COMM: a thread's name, before its first sample (COMM_EXEC after a followed exec).
 * PERF_RECORD_MMAP2: an executable mapping of a file, before the first sample that needs it.
 *
 * Each thread writes whole records, a buffer at a time, with one write(2) to FILE opened with
 * O_APPEND: the records of several threads and processes do not interleave, but they are not in
 * time order: readers sort them by time. A process that is killed loses the records it still
 * buffers. */
#define PERFMON_EMULATE_SAMPLE_TYPE 0x107 /* PERF_SAMPLE_IP | TID | TIME | PERIOD */
#define PERFMON_EMULATE_CALLCHAIN_MAX 127

#endif
