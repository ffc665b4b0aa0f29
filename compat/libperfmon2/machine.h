/* What the parts of libperfmon2 share: the catalogue, the failing call's detail, the signals. */
#ifndef PERFMON2_MACHINE_H
#define PERFMON2_MACHINE_H

#include <signal.h>

#include "perfmon/perfmon.h"

/* The catalogue of this machine's events, made once; NULL when it could not be. */
const perfmon_catalog* pfm2_catalog(void);

/* Records why the current call fails (printf-style), sets errno to `err` and returns -1. */
int pfm2_fail(int err, const char* format, ...) __attribute__((format(printf, 2, 3)));

/* Overflows of the calling thread's counters arrive as this signal, handled by the library. */
#define PFM2_OVERFLOW_SIGNAL (SIGRTMAX - 2)
/* A thread of this process that a PFM_FL_NOTIFY_BLOCK notification blocks waits in this signal's
 * handler until pfm_restart. */
#define PFM2_BLOCK_SIGNAL (SIGRTMAX - 3)

#endif
