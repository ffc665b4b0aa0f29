/* SPDX-License-Identifier: Apache-2.0 */
/* The sampling modes' log: samplers whose records go into one perf.data file (log.c). */
#ifndef PERFMON_COMPAT_LIBPMC_LOG_H
#define PERFMON_COMPAT_LIBPMC_LOG_H

#include <stdint.h>
#include <sys/types.h>

#include "perfmon/perfmon.h"

/* Opens a sampler for a sampling PMC, disabled, and enrols it in the log. */
int pmc_log_open_sampler(const perfmon_catalog* catalog, const char* events, const perfmon_target* target,
                         uint64_t period, int callchain, perfmon_sampler** sampler);
/* Takes the sampler out of the log (its records so far are in the file) and closes it. */
void pmc_log_close_sampler(perfmon_sampler* sampler);
/* Whether pmc_configure_logfile gave a file. */
int pmc_log_configured(void);
/* Starts the file, once, when the first sampling PMC starts: the samplers enrolled by then are the
 * file's events, and the processes `pids` (0: every process) are described in it. EBUSY for a
 * sampler enrolled after the file started. */
int pmc_log_begin(perfmon_sampler* sampler, const pid_t* pids, int count, int system_wide);
/* Writes what the sampler's rings hold into the file. */
void pmc_log_drain(perfmon_sampler* sampler);

#endif
