/* SPDX-License-Identifier: Apache-2.0 */
/* The groups LIKWID_EVENTS named, as likwid_markerInit opened them (marker.c), and each thread's
 * last region in them, for likwid.h's perfmon_get* calls (results.c). Kept past LIKWID_MARKER_CLOSE,
 * as likwid keeps its groups until perfmon_finalize. */
#ifndef PERFMON_COMPAT_LIKWID_GROUPS_H
#define PERFMON_COMPAT_LIKWID_GROUPS_H

#include <stddef.h>

#include "perfmon/perfmon.h"

typedef struct {
  perfmon_likwid_group* likwid; /* its definition and metrics; NULL for an event list in perf's syntax */
  size_t event_count;
  char** event_names; /* likwid's event names, or perf's as written */
} marker_group;

int marker_group_count(void);
const marker_group* marker_group_at(int group);
int marker_active_group(void);

/* The sums of the region the thread (numbered in the order threads first started a region) stopped
 * last in `group`: its values (*count of them) and seconds; NULL where there is none. */
const double* marker_thread_result(int group, int thread, size_t* count, double* seconds);

#endif
