/* SPDX-License-Identifier: Apache-2.0 */
/* perfmon's QEMU plugin's models, as functions of their own state (docs/emulated.md): the cache
 * model (set-associative LRU caches, one hierarchy per guest thread), the decoding of branches and
 * calls from instruction bytes (x86-64, arm64), the branch predictor model, and what a block is for
 * them. The plugin (qemu_plugin.c) keeps one of each per guest thread and runs them. */
#ifndef PERFMON_EMULATE_MODELS_H
#define PERFMON_EMULATE_MODELS_H

#include <stddef.h>
#include <stdint.h>

#include "counters_abi.h"

/* The cache model (caches=on; docs/emulated.md): per guest thread, as if each ran on a core of its
 * own, an L1 instruction cache and an L1 data cache in front of a last-level cache, each
 * set-associative with least-recently-used replacement, of the geometry the library wrote in the
 * counters file. An L1 miss looks the line up in the last level. */
struct cache {
  uint64_t* tags; /* sets x ways: line number + 1, most recently used first; 0: empty */
  uint64_t sets;
  uint32_t ways, line_shift;
  int sets_are_a_power_of_two;
  uint64_t last_tag; /* the line looked up last: the most recently used of its set */
};

struct thread_caches {
  struct cache l1i, l1d, ll;
};

enum branch_kind { NOT_A_BRANCH, CONDITIONAL, DIRECT, INDIRECT };

/* Calls and returns, for the shadow stack of callchains. */
enum control_flow { FLOWS_ON, CALLS, RETURNS };

/* What a block is, for the models: made once per translation and kept (QEMU does not say when it
 * drops a translation). */
struct block {
  uint64_t address;
  uint64_t instructions;
  enum branch_kind kind;
  uint64_t branch_address, fallthrough;
  enum control_flow flow; /* with callchains: whether it ends in a call or a return */
  /* With sampling, its instructions' addresses (in `fetch_address` after the fetches). */
  const uint64_t* instruction_address;
  /* With caches=on, the L1I lines its instructions are in, in order: an instruction in the line of
   * the one before it is fetched from the line just used, which is a hit and changes nothing. */
  uint64_t fetches;
  uint64_t fetch_address[];
};

/* The branch predictor (predict=on; docs/emulated.md): per guest thread, a gshare predictor for
 * conditional branches (16,384 two-bit counters indexed by the branch's address XOR the last 14
 * outcomes) and a branch target buffer for indirect ones (1,024 entries of the last target, by the
 * branch's address). Direct branches are never mispredicted. A branch's outcome is the address of
 * the block its thread executes next. */
#define PREDICTOR_COUNTERS 16384
#define TARGET_BUFFER_ENTRIES 1024
struct predictor {
  uint8_t counters[PREDICTOR_COUNTERS];
  uint64_t targets[TARGET_BUFFER_ENTRIES];
  uint32_t history;
  /* The branch that ended the thread's last block, waiting for its outcome. */
  enum branch_kind pending;
  uint64_t pending_address, pending_fallthrough;
};

int cache_init(struct cache* cache, const struct perfmon_emulate_cache* geometry);

const char* cache_geometry_problem(const struct perfmon_emulate_cache* geometry);

void caches_free(struct thread_caches* caches);

/* x86-64: skips the legacy and REX prefixes, then reads the opcode. VEX and EVEX instructions are
 * never branches. */
enum branch_kind x86_64_branch(const uint8_t* code, size_t size, enum control_flow* flow);

enum branch_kind aarch64_branch(const uint8_t* code, size_t size, enum control_flow* flow);

/* Looks the line holding `address` up, and makes it the most recently used of its set: one pass
 * that moves each line down a place until it reaches the line's own (or drops the least recently
 * used one, on a miss). */
static inline int cache_missed(struct cache* cache, uint64_t address) {
  const uint64_t line = address >> cache->line_shift;
  const uint64_t tag = line + 1;
  if (tag == cache->last_tag) return 0; /* most accesses: the line of the access before */
  cache->last_tag = tag;
  const uint64_t set = cache->sets_are_a_power_of_two ? line & (cache->sets - 1) : line % cache->sets;
  uint64_t* way = cache->tags + set * cache->ways;
  uint64_t moving = way[0];
  if (moving == tag) return 0; /* already the most recently used of its set */
  way[0] = tag;
  for (uint32_t k = 1; k < cache->ways; ++k) {
    const uint64_t here = way[k];
    way[k] = moving;
    if (here == tag) return 0;
    moving = here;
  }
  return 1;
}
/* True when the pending branch, whose outcome is that the thread went on at `next`, was
 * mispredicted; the model learns the outcome. */
static inline int mispredicted(struct predictor* p, uint64_t next) {
  if (p->pending == CONDITIONAL) {
    const int taken = next != p->pending_fallthrough;
    uint8_t* counter = &p->counters[(p->pending_address ^ p->history) % PREDICTOR_COUNTERS];
    const int predicted_taken = *counter >= 2;
    if (taken && *counter < 3) ++*counter;
    if (!taken && *counter > 0) --*counter;
    p->history = ((p->history << 1) | (uint32_t)taken) & (PREDICTOR_COUNTERS - 1);
    return predicted_taken != taken;
  }
  if (p->pending == INDIRECT) {
    uint64_t* target = &p->targets[p->pending_address % TARGET_BUFFER_ENTRIES];
    const int missed = *target != next;
    *target = next;
    return missed;
  }
  return 0;
}

#endif
