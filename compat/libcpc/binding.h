/* SPDX-License-Identifier: Apache-2.0 */
/* libcpc's engine: counters bound to a thread (or a process's thread, or a CPU), 64-bit virtual
 * values from presets, and overflow turned into SIGEMT. Both of libcpc's interfaces sit on it. */
#ifndef PERFMON_COMPAT_LIBCPC_BINDING_H
#define PERFMON_COMPAT_LIBCPC_BINDING_H

#include <signal.h>
#include <stdarg.h>
#include <stdint.h>

#include "perfmon/compat/libcpc.h"
#include "perfmon/perfmon.h"

#define CPC_MAX_REQUESTS CPC_MAX_PICS
#define CPC_EVENT_TEXT 256

/* One counter: an event in cpc's syntax without its pic ("instructions,sys,cmask=1"), and how it
 * starts. */
typedef struct cpc_request {
  char event[CPC_EVENT_TEXT];
  uint64_t preset;
  int notify; /* overflow raises SIGEMT */
} cpc_request;

typedef struct cpc_binding {
  perfmon_session* session;
  int count; /* requests, in order: session event k counts request k */
  cpc_request requests[CPC_MAX_REQUESTS];
  unsigned flags;                   /* CPC_BIND_* */
  volatile sig_atomic_t overflowed; /* stopped by an overflow until the next bind */
  int self;                         /* bound to the calling thread (its overflow signals) */
  /* Which interface bound it, and how: cpc_event_t's setting and the pic of each request (first
   * interface), or the set (second). */
  uint32_t setting;
  int pic[CPC_MAX_REQUESTS];
  cpc_set_t* set;
} cpc_binding;

/* The process's catalogue, made once. NULL when out of memory. */
perfmon_catalog* cpc_catalog(void);

/* Opens and starts `count` requests on `target` (NULL: the calling thread). Returns 0 or an errno
 * in Solaris' terms (EINVAL, EACCES, EAGAIN, ENOTSUP), and says why through cpc_report(). */
int cpc_binding_open(cpc_binding* binding, const cpc_request* requests, int count, const perfmon_target* target,
                     unsigned flags);
/* Rebinds an open binding to new presets: async-signal-safe when the same requests overflow as before
 * (what an overflow handler does); otherwise it reopens. */
int cpc_binding_rebind(cpc_binding* binding, const cpc_request* requests, int count, unsigned flags);
void cpc_binding_close(cpc_binding* binding);
/* Each request's 64-bit virtual value (preset + counted), with the time and cycle clock. */
int cpc_binding_read(cpc_binding* binding, uint64_t* values, hrtime_t* hrt, uint64_t* tick);
int cpc_binding_restart(cpc_binding* binding);

/* The binding of the calling thread (both interfaces bind one per thread), and setting it. */
cpc_binding* cpc_thread_binding(void);
void cpc_set_thread_binding(cpc_binding* binding);

/* Binds the calling thread on its own (a new binding, or the thread's rebound): what
 * cpc_bind_event and cpc_bind_curlwp do. `tag` supplies setting, pic and set. */
int cpc_bind_thread(const cpc_request* requests, int count, unsigned flags, const cpc_binding* tag);
/* Unbinds the calling thread. */
void cpc_unbind_thread(void);

/* The current time and cycle clock. */
hrtime_t cpc_hrtime(void);
uint64_t cpc_tick(void);

/* Queues SIGEMT (si_code EMT_CPCOVF, si_addr pc) for the calling thread. */
void cpc_queue_emt(void* pc);

/* Tells why a call failed, through the interface's error handler. */
void cpc_report(const char* fn, const char* fmt, ...) __attribute__((format(printf, 2, 3)));
void cpc_default_report(const char* fn, const char* fmt, va_list ap);
extern void (*cpc_report_hook)(const char* fn, const char* fmt, va_list ap);

#endif
