/* SPDX-License-Identifier: Apache-2.0 */
/* What the perfmon2 test programs share: reading the default format's samples (§3.6.4), each an
 * entry and its body's words, one after the other from the header. */
#ifndef PERFMON_TESTS_PERFMON2_SAMPLES_H
#define PERFMON_TESTS_PERFMON2_SAMPLES_H

#include <perfmon/compat/perfmon2.h>
#include <stdint.h>
#include <string.h>

static inline const char* first_sample(const pfm_default_smpl_hdr_t* header) {
  return (const char*)header + sizeof *header;
}

/* The sample at *at, with `body_words` words of body, into *entry and body (NULL for none); *at
 * moves past it. */
static inline void next_sample(const char** at, pfm_default_smpl_entry_t* entry, uint64_t* body, size_t body_words) {
  memcpy(entry, *at, sizeof *entry);
  if (body_words > 0) memcpy(body, *at + sizeof *entry, body_words * sizeof *body);
  *at += sizeof *entry + body_words * sizeof(uint64_t);
}

#endif
