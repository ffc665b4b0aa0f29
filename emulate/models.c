/* SPDX-License-Identifier: Apache-2.0 */
/* The plugin's models (models.h): cache geometry and storage, branch decoding, the predictor. */
#include "models.h"

#include <stdlib.h>

int cache_init(struct cache* cache, const struct perfmon_emulate_cache* geometry) {
  cache->ways = geometry->ways;
  cache->line_shift = (uint32_t)__builtin_ctzll(geometry->line);
  cache->sets = geometry->size / ((uint64_t)geometry->ways * geometry->line);
  cache->sets_are_a_power_of_two = (cache->sets & (cache->sets - 1)) == 0;
  cache->tags = calloc(cache->sets * cache->ways, sizeof *cache->tags);
  return cache->tags != NULL ? 0 : -1;
}

const char* cache_geometry_problem(const struct perfmon_emulate_cache* geometry) {
  if (geometry->line == 0 || (geometry->line & (geometry->line - 1)) != 0) return "its line size is not a power of two";
  if (geometry->ways == 0) return "it has no ways";
  const uint64_t set_bytes = (uint64_t)geometry->ways * geometry->line;
  if (geometry->size == 0 || geometry->size % set_bytes != 0) return "its size is not a whole number of sets";
  return NULL;
}

void caches_free(struct thread_caches* caches) {
  if (caches == NULL) return;
  free(caches->l1i.tags);
  free(caches->l1d.tags);
  free(caches->ll.tags);
  free(caches);
}

/* x86-64: skips the legacy and REX prefixes, then reads the opcode. VEX and EVEX instructions are
 * never branches. */
enum branch_kind x86_64_branch(const uint8_t* code, size_t size, enum control_flow* flow) {
  size_t k = 0;
  while (k < size && (code[k] == 0xf0 || code[k] == 0xf2 || code[k] == 0xf3 || code[k] == 0x2e || code[k] == 0x36 ||
                      code[k] == 0x3e || code[k] == 0x26 || code[k] == 0x64 || code[k] == 0x65 || code[k] == 0x66 ||
                      code[k] == 0x67))
    ++k;
  if (k < size && (code[k] & 0xf0) == 0x40) ++k; /* REX */
  if (k >= size) return NOT_A_BRANCH;
  const uint8_t op = code[k];
  if (op == 0x0f) return k + 1 < size && (code[k + 1] & 0xf0) == 0x80 ? CONDITIONAL : NOT_A_BRANCH; /* jcc rel32 */
  if ((op & 0xf0) == 0x70 || (op >= 0xe0 && op <= 0xe3)) return CONDITIONAL; /* jcc rel8, loop*, jrcxz */
  if (op == 0xe8) *flow = CALLS;
  if (op == 0xe8 || op == 0xe9 || op == 0xeb) return DIRECT; /* call, jmp */
  if (op == 0xc2 || op == 0xc3) *flow = RETURNS;
  if (op == 0xc2 || op == 0xc3 || op == 0xca || op == 0xcb || op == 0xcf) return INDIRECT; /* ret, iret */
  if (op == 0xff && k + 1 < size) {
    const unsigned reg = (code[k + 1] >> 3) & 7; /* call and jmp through a register or memory, near or far */
    if (reg == 2) *flow = CALLS;
    if (reg >= 2 && reg <= 5) return INDIRECT;
  }
  return NOT_A_BRANCH;
}

enum branch_kind aarch64_branch(const uint8_t* code, size_t size, enum control_flow* flow) {
  if (size != 4) return NOT_A_BRANCH;
  const uint32_t insn = (uint32_t)code[0] | (uint32_t)code[1] << 8 | (uint32_t)code[2] << 16 | (uint32_t)code[3] << 24;
  if ((insn & 0xfc000000) == 0x94000000 || (insn & 0xfffffc1f) == 0xd63f0000 || (insn & 0xfefff800) == 0xd63f0800)
    *flow = CALLS; /* bl; blr; blraa, blrab and their zero-modifier forms */
  if ((insn & 0xfffffc1f) == 0xd65f0000 || insn == 0xd65f0bff || insn == 0xd65f0fff)
    *flow = RETURNS;                                    /* ret, retaa, retab */
  if ((insn & 0x7c000000) == 0x14000000) return DIRECT; /* b, bl */
  if ((insn & 0xff000000) == 0x54000000 || (insn & 0x7e000000) == 0x34000000 || (insn & 0x7e000000) == 0x36000000)
    return CONDITIONAL;                                   /* b.cond, bc.cond; cbz, cbnz; tbz, tbnz */
  if ((insn & 0xfe000000) == 0xd6000000) return INDIRECT; /* br, blr, ret, their pointer-authenticated forms */
  return NOT_A_BRANCH;
}
