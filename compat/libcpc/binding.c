/* SPDX-License-Identifier: Apache-2.0 */
/* libcpc's engine over perfmon's C ABI (binding.h). */
#define _GNU_SOURCE
#include "binding.h"

#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <ucontext.h>

#include "../common/signal_handler.h"
#include "interrupted_pc.h"

/* ---- The catalogue, the thread's binding, clocks, reports ------------------------------------- */

static pthread_once_t catalog_once = PTHREAD_ONCE_INIT;
static perfmon_catalog* catalog;

static void make_catalog(void) {
  catalog = perfmon_catalog_new();
}

perfmon_catalog* cpc_catalog(void) {
  pthread_once(&catalog_once, make_catalog);
  return catalog;
}

/* The signal handler reads the thread's binding from here; the key closes it when the thread ends
 * ("the context is destroyed after the LWP exits"). */
static __thread cpc_binding* thread_binding;
static pthread_once_t key_once = PTHREAD_ONCE_INIT;
static pthread_key_t binding_key;

static void release_at_exit(void* binding) {
  cpc_binding_close(binding);
  free(binding);
}

static void make_key(void) {
  pthread_key_create(&binding_key, release_at_exit);
}

cpc_binding* cpc_thread_binding(void) {
  return thread_binding;
}

void cpc_set_thread_binding(cpc_binding* binding) {
  pthread_once(&key_once, make_key);
  thread_binding = binding;
  pthread_setspecific(binding_key, binding);
}

hrtime_t cpc_hrtime(void) {
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return (hrtime_t)now.tv_sec * 1000000000 + now.tv_nsec;
}

uint64_t cpc_tick(void) {
#if defined(__x86_64__) || defined(__i386__)
  return __builtin_ia32_rdtsc();
#elif defined(__aarch64__)
  uint64_t ticks;
  __asm__ volatile("mrs %0, cntvct_el0" : "=r"(ticks));
  return ticks;
#else
  return 0;
#endif
}

void cpc_default_report(const char* fn, const char* fmt, va_list ap) {
  fprintf(stderr, "libcpc: %s: ", fn);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
}

void (*cpc_report_hook)(const char* fn, const char* fmt, va_list ap) = cpc_default_report;

void cpc_report(const char* fn, const char* fmt, ...) {
  if (cpc_report_hook == NULL) return;
  va_list ap;
  va_start(ap, fmt);
  cpc_report_hook(fn, fmt, ap);
  va_end(ap);
}

/* ---- Overflow: the kernel's signal becomes SIGEMT ------------------------------------------------ */

/* Queues SIGEMT for the calling thread as the kernel would send it: si_code EMT_CPCOVF, si_addr the
 * program counter. A thread may give itself a positive si_code (rt_tgsigqueueinfo). */
void cpc_queue_emt(void* pc) {
  siginfo_t info;
  memset(&info, 0, sizeof info);
  info.si_signo = SIGEMT;
  info.si_code = EMT_CPCOVF;
  info.si_addr = pc;
  syscall(SYS_rt_tgsigqueueinfo, getpid(), (pid_t)syscall(SYS_gettid), SIGEMT, &info);
}

/* Stops every counter of the binding where it stands: async-signal-safe. */
static void freeze(cpc_binding* binding) {
  for (int k = 0; k < binding->count; ++k)
    perfmon_session_control_event(binding->session, (size_t)k, PERFMON_EVENT_DISABLE);
  binding->overflowed = 1;
}

/* Runs with SIGEMT blocked (sa_mask): the SIGEMT queued here is delivered when this returns, on the
 * interrupted context, so that the program's handler sees the program counter and registers of the
 * code that overflowed, and the kernel applies its sa_mask, SA_NODEFER and default action. */
static void on_overflow(int sig, siginfo_t* info, void* context) {
  (void)sig;
  const int saved_errno = errno;
  cpc_binding* binding = thread_binding;
  if (binding != NULL && binding->session != NULL && !binding->overflowed &&
      perfmon_session_event_of_fd(binding->session, info->si_fd) >= 0) {
    freeze(binding);
    cpc_queue_emt((void*)interrupted_pc(context));
  }
  errno = saved_errno;
}

static pthread_once_t handler_once = PTHREAD_ONCE_INIT;
static int handler_error;

static void install_handler(void) {
  handler_error = install_siginfo_handler(CPC_INTERNAL_SIGNAL, on_overflow, SIGEMT);
}

/* ---- Binding ----------------------------------------------------------------------------------- */

/* The period after which a counter preset to `preset` passes UINT64_MAX; 0 when it cannot (the
 * kernel takes periods below 2^63: presets from UINT64_MAX - INT64_MAX up). */
static uint64_t overflow_period(const cpc_request* request) {
  if (!request->notify || request->preset == 0) return 0;
  const uint64_t period = (uint64_t)0 - request->preset;
  return period >> 63 ? 0 : period;
}

/* The event's terms after its name ("sys,nouser"), or "". */
static const char* terms_of(const char* event) {
  const char* comma = strchr(event, ',');
  return comma == NULL ? "" : comma + 1;
}

/* "cpc/pic0=A,pic1=B,TERMS/" when every request has the same terms (one group, read at once), else
 * one specification per request, each a group of its own. Either way event k counts request k. */
static int event_list(const cpc_request* requests, int count, char* out, size_t size) {
  int same_terms = 1;
  for (int k = 1; k < count; ++k) same_terms &= strcmp(terms_of(requests[k].event), terms_of(requests[0].event)) == 0;
  size_t used = 0;
  for (int k = 0; k < count; ++k) {
    const char* event = requests[k].event;
    const int name_length = (int)strcspn(event, ",");
    const char* terms = terms_of(event);
    const int n = same_terms
                      ? snprintf(out + used, size - used, "%spic%d=%.*s", k == 0 ? "cpc/" : ",", k, name_length, event)
                      : snprintf(out + used, size - used, "%scpc/pic0=%.*s%s%s/", k == 0 ? "" : ",", name_length, event,
                                 *terms ? "," : "", terms);
    if (n < 0 || (size_t)n >= size - used) return ENAMETOOLONG;
    used += (size_t)n;
  }
  if (same_terms) {
    const char* terms = terms_of(requests[0].event);
    const int n = snprintf(out + used, size - used, "%s%s/", *terms ? "," : "", terms);
    if (n < 0 || (size_t)n >= size - used) return ENAMETOOLONG;
  }
  return 0;
}

/* Solaris' errors for what perfmon said. */
static int solaris_errno(int err) {
  switch (err) {
    case EPERM:
    case EACCES:
      return EACCES;
    case EBUSY:
      return EAGAIN;
    case EOPNOTSUPP:
    case ENOENT: /* the event is not on this machine (no PMU, not this PMU's) */
    case ENODEV:
      return ENOTSUP;
    default:
      return EINVAL;
  }
}

int cpc_binding_open(cpc_binding* binding, const cpc_request* requests, int count, const perfmon_target* target,
                     unsigned flags) {
  memset(binding, 0, sizeof *binding);
  if (count < 1 || count > CPC_MAX_REQUESTS) {
    cpc_report("bind", "%d counters requested; between 1 and %d can be", count, CPC_MAX_REQUESTS);
    return EINVAL;
  }
  perfmon_catalog* events = cpc_catalog();
  if (events == NULL) return ENOMEM;
  char list[CPC_MAX_REQUESTS * (CPC_EVENT_TEXT + 16)];
  if (event_list(requests, count, list, sizeof list) != 0) return EINVAL;

  uint64_t periods[CPC_MAX_REQUESTS] = {0};
  int overflows = 0;
  for (int k = 0; k < count; ++k) overflows |= (periods[k] = overflow_period(&requests[k])) != 0;
  const int self = target == NULL || target->kind == PERFMON_TARGET_SELF;
  if (overflows && !self) {
    cpc_report("bind", "overflow signals go to the bound thread: bind the calling thread (cpc_bind_curlwp)");
    return EINVAL;
  }
  if (overflows) {
    pthread_once(&handler_once, install_handler);
    if (handler_error != 0) return handler_error;
  }
  perfmon_session_options options;
  memset(&options, 0, sizeof options);
  options.no_inherit = 1; /* each thread has its own counters; CPC_BIND_LWP_INHERIT binds new threads */
  options.fail_unsupported = 1;
  if (overflows) {
    options.overflow_periods = periods;
    options.overflow_period_count = (size_t)count;
    options.overflow_signal = CPC_INTERNAL_SIGNAL;
  }
  perfmon_session* session = NULL;
  const int err = perfmon_session_open(events, list, target, &options, &session);
  if (err != 0) {
    cpc_report("bind", "%s", perfmon_last_error());
    return overflows && (err == EINVAL || err == EOPNOTSUPP) ? ENOTSUP : solaris_errno(err);
  }
  binding->session = session;
  binding->count = count;
  memcpy(binding->requests, requests, sizeof *requests * (size_t)count);
  binding->flags = flags;
  binding->self = self;
  if (perfmon_session_start(session) != 0) {
    cpc_report("bind", "%s", perfmon_last_error());
    cpc_binding_close(binding);
    return EAGAIN;
  }
  return 0;
}

/* Whether `requests` overflow exactly where the open binding's do (same events, same counters with
 * a period): then new presets are new periods, set without opening anything. */
static int same_shape(const cpc_binding* binding, const cpc_request* requests, int count) {
  if (binding->session == NULL || count != binding->count) return 0;
  for (int k = 0; k < count; ++k) {
    if (strcmp(requests[k].event, binding->requests[k].event) != 0) return 0;
    if ((overflow_period(&requests[k]) != 0) != (overflow_period(&binding->requests[k]) != 0)) return 0;
  }
  return 1;
}

int cpc_binding_rebind(cpc_binding* binding, const cpc_request* requests, int count, unsigned flags) {
  if (!same_shape(binding, requests, count) || flags != binding->flags) {
    const perfmon_target self = {PERFMON_TARGET_SELF, 0, NULL, 0};
    cpc_binding_close(binding);
    return cpc_binding_open(binding, requests, count, &self, flags);
  }
  /* Async-signal-safe from here: perfmon's event controls only. */
  for (int k = 0; k < count; ++k) {
    perfmon_session_control_event(binding->session, (size_t)k, PERFMON_EVENT_DISABLE);
    perfmon_session_control_event(binding->session, (size_t)k, PERFMON_EVENT_ZERO);
  }
  for (int k = 0; k < count; ++k) {
    binding->requests[k].preset = requests[k].preset;
    const uint64_t period = overflow_period(&requests[k]);
    if (period != 0 && perfmon_session_set_period(binding->session, (size_t)k, period) != 0) return EINVAL;
  }
  binding->overflowed = 0;
  for (int k = 0; k < count; ++k)
    if (perfmon_session_control_event(binding->session, (size_t)k, PERFMON_EVENT_ENABLE) != 0) return EAGAIN;
  return 0;
}

void cpc_binding_close(cpc_binding* binding) {
  if (binding == NULL || binding->session == NULL) return;
  perfmon_session* session = binding->session;
  binding->session = NULL; /* the signal handler sees no binding from here */
  perfmon_session_close(session);
  binding->count = 0;
}

int cpc_binding_read(cpc_binding* binding, uint64_t* values, hrtime_t* hrt, uint64_t* tick) {
  if (binding == NULL || binding->session == NULL) return EINVAL;
  if (perfmon_session_read(binding->session) != 0) return EAGAIN;
  *hrt = cpc_hrtime();
  *tick = cpc_tick();
  for (int k = 0; k < binding->count; ++k) {
    perfmon_value value;
    if (perfmon_session_value(binding->session, (size_t)k, &value) != 0) return EINVAL;
    values[k] = binding->requests[k].preset + value.raw; /* 64-bit virtual counter: wraps as hardware does */
  }
  return 0;
}

int cpc_binding_restart(cpc_binding* binding) {
  if (binding == NULL || binding->session == NULL) return EINVAL;
  return cpc_binding_rebind(binding, binding->requests, binding->count, binding->flags);
}

/* ---- The calling thread's binding ------------------------------------------------------------- */

static void copy_tag(cpc_binding* binding, const cpc_binding* tag) {
  binding->setting = tag->setting;
  memcpy(binding->pic, tag->pic, sizeof binding->pic);
  binding->set = tag->set;
}

int cpc_bind_thread(const cpc_request* requests, int count, unsigned flags, const cpc_binding* tag) {
  cpc_binding* binding = thread_binding;
  if (binding != NULL) {
    const int err = cpc_binding_rebind(binding, requests, count, flags);
    if (err == 0) copy_tag(binding, tag);
    return err;
  }
  binding = calloc(1, sizeof *binding);
  if (binding == NULL) return ENOMEM;
  const perfmon_target self = {PERFMON_TARGET_SELF, 0, NULL, 0};
  const int err = cpc_binding_open(binding, requests, count, &self, flags);
  if (err != 0) {
    free(binding);
    return err;
  }
  copy_tag(binding, tag);
  cpc_set_thread_binding(binding);
  return 0;
}

void cpc_unbind_thread(void) {
  cpc_binding* binding = thread_binding;
  if (binding == NULL) return;
  cpc_set_thread_binding(NULL);
  cpc_binding_close(binding);
  free(binding);
}
