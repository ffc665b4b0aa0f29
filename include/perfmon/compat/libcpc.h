/* SPDX-License-Identifier: Apache-2.0 */
/* Solaris libcpc on Linux, over perfmon's C ABI (docs/compat.md). Both of Solaris' interfaces:
 *
 *   - the first one, of cpc_bind_event(3CPC): cpc_event_t, cpc_strtoevent, cpc_bind_event,
 *     cpc_take_sample, cpc_rele;
 *   - the one that replaced it: cpc_open, cpc_set_create, cpc_set_add_request, cpc_bind_curlwp,
 *     cpc_set_sample, cpc_buf_*, cpc_unbind, cpc_close.
 *
 * Counters are 64-bit and virtualised per thread (an LWP is a thread). Event names are perfmon's
 * (perf's names, tracepoints, the CPU's own names: `perfmon list`), in cpc's syntax:
 * "pic0=instructions,pic1=branch-misses[,sys][,nouser][,cmask=N,umask=N,inv,edge]".
 *
 * Overflow: Linux has no SIGEMT on x86 or arm64. Here SIGEMT is SIGSTKFLT, a signal the kernel never
 * sends, and a counter's overflow arrives as SIGEMT with si_code EMT_CPCOVF and si_addr the
 * interrupted program counter, in the bound thread, with the interrupted context as its ucontext.
 * libcpc takes the kernel's notification on an internal real-time signal (CPC_INTERNAL_SIGNAL)
 * first; a program must leave that one alone.
 *
 * Link with -lcpc (pkg-config libcpc, whose flags also let a Solaris program keep its own
 * #include <libcpc.h>: docs/compat.md).
 */
#ifndef PERFMON_COMPAT_LIBCPC_H
#define PERFMON_COMPAT_LIBCPC_H

#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <unistd.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Solaris' high-resolution time: nanoseconds (here CLOCK_MONOTONIC). */
typedef int64_t hrtime_t;

#if defined(SIGSTKFLT)
#define SIGEMT SIGSTKFLT
#elif !defined(SIGEMT)
#error "no signal to stand for SIGEMT on this architecture"
#endif
/* si_code of a counter overflow, as Solaris numbers it. */
#define EMT_CPCOVF 2
/* The real-time signal the kernel's overflow notification comes on, before libcpc turns it into
 * SIGEMT. */
#define CPC_INTERNAL_SIGNAL (SIGRTMAX - 1)

/* The thread's id: an LWP is a thread on Linux. */
static inline pid_t _lwp_self(void) {
  return (pid_t)syscall(SYS_gettid);
}

#define CPC_VER_NONE 0
#define CPC_VER_1 1 /* cpc_bind_event's interface */
#define CPC_VER_CURRENT 2

/* Counters a specification may name (pic0 .. pic7); cpc_getnpic() says how many the CPU has. */
#define CPC_MAX_PICS 8

/* ---- The first interface (cpc_bind_event(3CPC)) ------------------------------------------------ */

typedef struct _cpc_event {
  int ce_cpuver;
  hrtime_t ce_hrt;  /* when the counters were sampled */
  uint64_t ce_tick; /* the CPU's cycle clock then: TSC on x86, CNTVCT_EL0 on arm64 */
  uint64_t ce_pic[CPC_MAX_PICS];
  uint32_t ce_setting; /* libcpc's: which specification this event holds; leave it */
  uint32_t ce_npic;    /* libcpc's: the highest pic it names, plus one */
} cpc_event_t;

#define CPC_BIND_LWP_INHERIT 0x1
#define CPC_BIND_EMT_OVF 0x2

int cpc_version(unsigned int version);
/* A number for this CPU (>= 0; -1 when this kernel cannot count at all). */
int cpc_getcpuver(void);
const char* cpc_getcciname(int cpuver);
const char* cpc_getcpuref(int cpuver);
unsigned int cpc_getnpic(int cpuver);
int cpc_strtoevent(int cpuver, const char* spec, cpc_event_t* event);
/* The event's specification, in a buffer of the calling thread's, valid until its next call. */
char* cpc_eventtostr(cpc_event_t* event);
int cpc_access(void);
int cpc_bind_event(cpc_event_t* event, int flags);
int cpc_take_sample(cpc_event_t* event);
int cpc_rele(void);

/* Where the first interface's errors are told (default: standard error). */
typedef void(cpc_errfn_t)(const char* fn, const char* fmt, va_list ap);
void cpc_seterrfn(cpc_errfn_t* errfn);

/* ---- The second interface (cpc(3CPC)) ----------------------------------------------------------- */

typedef struct __cpc cpc_t;
typedef struct __cpc_set cpc_set_t;
typedef struct __cpc_buf cpc_buf_t;

#define CPC_MAX_ATTR_LEN 32
typedef struct __cpc_attr {
  char ca_name[CPC_MAX_ATTR_LEN]; /* cmask, umask, inv, edge */
  uint64_t ca_val;
} cpc_attr_t;

/* Request flags. */
#define CPC_COUNT_USER 0x2
#define CPC_COUNT_SYSTEM 0x4
#define CPC_OVF_NOTIFY_EMT 0x1
/* Capabilities (cpc_caps). */
#define CPC_CAP_OVERFLOW_INTERRUPT 0x1
#define CPC_CAP_OVERFLOW_PRECISE 0x2

typedef void(cpc_errhndlr_t)(const char* fn, int subcode, const char* fmt, va_list ap);

/* A process to bind to (Solaris' libpctx gives these; here only what cpc_bind_pctx needs). */
typedef struct __pctx pctx_t;
pctx_t* pctx_capture(pid_t pid, void* arg, int verbose, void (*errfn)(const char*, const char*, va_list));
void pctx_release(pctx_t* pctx);

cpc_t* cpc_open(int version);
int cpc_close(cpc_t* cpc);
unsigned int cpc_npic(cpc_t* cpc);
unsigned int cpc_caps(cpc_t* cpc);
const char* cpc_cciname(cpc_t* cpc);
const char* cpc_cpuref(cpc_t* cpc);
int cpc_seterrhndlr(cpc_t* cpc, cpc_errhndlr_t* fn);

cpc_set_t* cpc_set_create(cpc_t* cpc);
int cpc_set_destroy(cpc_t* cpc, cpc_set_t* set);
/* Returns the request's index in the set, or -1. */
int cpc_set_add_request(cpc_t* cpc, cpc_set_t* set, const char* event, uint64_t preset, unsigned int flags,
                        unsigned int nattrs, const cpc_attr_t* attrs);
int cpc_request_preset(cpc_t* cpc, int index, uint64_t preset);

int cpc_bind_curlwp(cpc_t* cpc, cpc_set_t* set, unsigned int flags);
int cpc_bind_pctx(cpc_t* cpc, pctx_t* pctx, id_t id, cpc_set_t* set, unsigned int flags);
int cpc_bind_cpu(cpc_t* cpc, int cpu, cpc_set_t* set, unsigned int flags);
int cpc_unbind(cpc_t* cpc, cpc_set_t* set);
int cpc_set_sample(cpc_t* cpc, cpc_set_t* set, cpc_buf_t* buf);
/* After an overflow: counting again from each request's preset. */
int cpc_set_restart(cpc_t* cpc, cpc_set_t* set);

cpc_buf_t* cpc_buf_create(cpc_t* cpc, cpc_set_t* set);
int cpc_buf_destroy(cpc_t* cpc, cpc_buf_t* buf);
int cpc_buf_get(cpc_t* cpc, cpc_buf_t* buf, int index, uint64_t* value);
int cpc_buf_set(cpc_t* cpc, cpc_buf_t* buf, int index, uint64_t value);
hrtime_t cpc_buf_hrtime(cpc_t* cpc, cpc_buf_t* buf);
uint64_t cpc_buf_tick(cpc_t* cpc, cpc_buf_t* buf);
void cpc_buf_sub(cpc_t* cpc, cpc_buf_t* ds, cpc_buf_t* a, cpc_buf_t* b);
void cpc_buf_add(cpc_t* cpc, cpc_buf_t* ds, cpc_buf_t* a, cpc_buf_t* b);
void cpc_buf_copy(cpc_t* cpc, cpc_buf_t* ds, cpc_buf_t* src);
void cpc_buf_zero(cpc_t* cpc, cpc_buf_t* buf);

#ifdef __cplusplus
}
#endif

#endif /* PERFMON_COMPAT_LIBCPC_H */
