/* SPDX-License-Identifier: Apache-2.0 */
/* perfmon2 contexts: their software state (sets of PMC and PMD values), their binding to a
 * thread or CPU through a perfmon session, and their message queue. */
#ifndef PERFMON2_CONTEXT_H
#define PERFMON2_CONTEXT_H

#include <stddef.h>
#include <sys/types.h>

#include "perfmon/compat/perfmon2.h"

/* True when `fd` is a context's descriptor (async-signal-safe). */
int pfm2_is_context(int fd);
/* The program closes a context's descriptor: the context is unloaded and freed. */
void pfm2_context_closed(int fd);
/* The program maps a context's sampling buffer (read-only, whole, once), or unmaps `address`. */
void* pfm2_context_mmap(int fd, void* address, size_t length, int protection, int flags, off_t offset);
void pfm2_context_unmapped(void* address);

#endif
