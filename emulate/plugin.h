/* SPDX-License-Identifier: Apache-2.0 */
/* What the parts of perfmon's QEMU plugin share: the counters file, each guest thread's slot in it,
 * and the sampling that samples.c does for qemu_plugin.c. */
#ifndef PERFMON_EMULATE_PLUGIN_H
#define PERFMON_EMULATE_PLUGIN_H

#include <stdint.h>

#include "counters_abi.h"
#include "models.h"
#include "qemu_plugin_api.h"

#define MAX_VCPUS 4096

extern struct perfmon_emulate_counters* counters;
/* This process's threads' slots, by QEMU's vCPU index (one per guest thread in qemu-user). */
extern struct perfmon_emulate_slot* slot_of_vcpu[MAX_VCPUS];

static inline void add(uint64_t* counter, uint64_t n) {
  __atomic_fetch_add(counter, n, __ATOMIC_RELAXED);
}

/* Adds to a counter of the thread's slot: a plain add on a slot of its own (atomic only for the
 * readers), an atomic one on the shared slot. */
static inline void count(struct perfmon_emulate_slot* slot, uint64_t* counter, uint64_t n) {
  if (slot == &counters->slot[0])
    add(counter, n);
  else
    __atomic_store_n(counter, __atomic_load_n(counter, __ATOMIC_RELAXED) + n, __ATOMIC_RELAXED);
}

/* ---- Sampling (samples.c) ---- */
extern uint64_t sample_period; /* 0: no sampling */
extern int sample_callchains;
extern int samples_fd;
extern char process_name[16];            /* comm= : what the threads are called */
extern int process_execed;               /* started by an exec followed: its first thread's name is COMM_EXEC */
extern __thread int maps_change_pending; /* the thread's system call maps memory executable */
struct sampling_thread;
extern struct sampling_thread* sampling_of_vcpu[MAX_VCPUS];

/* Before the block's instructions count: its samples, and its calls and returns on the stack. */
void sample_block(struct perfmon_emulate_slot* slot, unsigned int vcpu_index, const struct block* block);
/* A thread that ends writes what it has (on itself); at the process's exit every thread does. */
void flush_thread_samples(unsigned int vcpu_index);
void process_exits(qemu_plugin_id_t id, void* data);
/* The process's mappings changed (a system call mapped memory executable): read them again. */
void maps_changed(void);
/* The samples file in a forked child, and the maps locked through the fork. */
void sampling_forked(void);
void sampling_forking(void);
void sampling_forked_parent(void);

#endif
