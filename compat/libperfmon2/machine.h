/* SPDX-License-Identifier: Apache-2.0 */
/* What the parts of libperfmon2 share: the catalogue, the failing call's detail, the signals, the
 * contexts' list and its lock, and the threads' ids. */
#ifndef PERFMON2_MACHINE_H
#define PERFMON2_MACHINE_H

#include <pthread.h>
#include <signal.h>
#include <sys/types.h>

#include "perfmon/perfmon.h"

/* The catalogue of this machine's events, made once; NULL when it could not be. */
const perfmon_catalog* pfm2_catalog(void);

/* The contexts (context_state.h), and the lock every call and overflow takes (recursive). */
struct context;
extern pthread_mutex_t pfm2_lock;
extern struct context* pfm2_contexts;

pid_t pfm2_gettid(void);
/* The thread group of thread `tid` (/proc/TID/status), or -1. */
pid_t pfm2_thread_group_of(pid_t tid);

/* Records why the current call fails (printf-style), sets errno to `err` and returns -1. */
int pfm2_fail(int err, const char* format, ...) __attribute__((format(printf, 2, 3)));

/* Overflows of the calling thread's counters arrive as this signal, handled by the library. */
#define PFM2_OVERFLOW_SIGNAL (SIGRTMAX - 2)
/* A thread of this process that a PFM_FL_NOTIFY_BLOCK notification blocks waits in this signal's
 * handler until pfm_restart. */
#define PFM2_BLOCK_SIGNAL (SIGRTMAX - 3)

#endif
