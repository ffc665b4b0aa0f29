/* SPDX-License-Identifier: Apache-2.0 */
/* libpmc's event specifiers, as perfmon events: what a PMC counts (events.c). */
#ifndef PERFMON_COMPAT_LIBPMC_EVENTS_H
#define PERFMON_COMPAT_LIBPMC_EVENTS_H

#include <stddef.h>

#include "perfmon/compat/pmc.h"
#include "perfmon/perfmon.h"

#define PMC_MAX_PARTS 2

/* What a specifier counts: one or more perfmon events, summed, each with an optional tracepoint
 * filter (PAGE_FAULT.READ is the user and the kernel page-fault tracepoints without the write bit). */
typedef struct pmc_recipe {
  char events[512]; /* a perfmon event list: one group per part */
  const char* filters[PMC_MAX_PARTS];
  int parts;
  enum pmc_class class_;
  uint32_t caps;
} pmc_recipe;

/* Translates a specifier for `mode`. Returns 0, or an errno with the reason in `why`. */
int pmc_translate(const perfmon_catalog* catalog, const perfmon_cpu_info* cpu, const char* spec, enum pmc_mode mode,
                  pmc_recipe* recipe, char* why, size_t why_size);

/* The class of the CPU's own counters. */
enum pmc_class pmc_cpu_class(const perfmon_cpu_info* cpu);

/* The software class's events, in enum pmc_event order from PMC_EV_SOFT_CLOCK_HARD. */
extern const char* const pmc_soft_names[6];

#endif
