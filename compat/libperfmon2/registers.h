/* SPDX-License-Identifier: Apache-2.0 */
/* The logical registers of this machine: which PMC/PMD pairs exist, what hardware register each
 * stands for, and the event a PMC value selects (perf's syntax, for perfmon's C ABI). */
#ifndef PERFMON2_REGISTERS_H
#define PERFMON2_REGISTERS_H

#include <stddef.h>
#include <stdint.h>

#include "perfmon/compat/perfmon2.h"

/* Hardware pairs of this machine (0 without a PMU), its counter width, and whether register n
 * exists. Cheap after the first call. */
int pfm2_hardware_pairs(void);
int pfm2_counter_width(void);
int pfm2_register_exists(unsigned n);

/* Fills the info of PMC (pmc != 0) or PMD n; -1 when it does not exist. */
int pfm2_register_info(unsigned n, int pmc, pfarg_pmcinfo_t* info);

/* The event PMC n with `value` counts, written into `text` (perf's syntax): 1; 0 when the value
 * counts nothing (the register's default); -1 when the value is invalid for it. */
int pfm2_event_of(unsigned n, uint64_t value, char* text, size_t size);

#endif
