/* SPDX-License-Identifier: Apache-2.0 */
/* CPC_BIND_LWP_INHERIT: a thread created by a bound thread is bound to the same events, its
 * counters from 0; with CPC_BIND_EMT_OVF it gets SIGEMT at once, its counters reading UINT64_MAX,
 * so that its handler presets them. libcpc wraps pthread_create to do it in the new thread before
 * its start routine: the kernel's inherited counters would sum the threads and signal none. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "binding.h"

typedef int (*pthread_create_fn)(pthread_t*, const pthread_attr_t*, void* (*)(void*), void*);

typedef struct inherited {
  void* (*start)(void*);
  void* arg;
  cpc_binding parent; /* requests, flags and tag; no session */
} inherited;

static void* start_bound(void* argument) {
  inherited context = *(inherited*)argument;
  free(argument);
  const int emt = (context.parent.flags & CPC_BIND_EMT_OVF) != 0;
  cpc_request requests[CPC_MAX_REQUESTS];
  for (int k = 0; k < context.parent.count; ++k) {
    requests[k] = context.parent.requests[k];
    requests[k].preset = emt ? UINT64_MAX : 0;
    requests[k].notify = 0; /* the handler's rebind sets the periods */
  }
  if (cpc_bind_thread(requests, context.parent.count, context.parent.flags, &context.parent) == 0 && emt) {
    cpc_binding* binding = cpc_thread_binding();
    perfmon_session_stop(binding->session);
    perfmon_session_reset(binding->session);
    binding->overflowed = 1;
    void* pc; /* where the thread starts: the program counter its signal names */
    memcpy(&pc, &context.start, sizeof pc);
    cpc_queue_emt(pc);
  }
  return context.start(context.arg);
}

#ifdef CPC_STATIC_ARCHIVE
/* libcpc.a: the program is linked with -Wl,--wrap=pthread_create (pkg-config --static libcpc and
 * CMake's cpc_static say so), which sends its calls here and names libc's __real_pthread_create. */
int __real_pthread_create(pthread_t* thread, const pthread_attr_t* attr, void* (*start)(void*), void* arg);
static pthread_create_fn real = __real_pthread_create;
#define PTHREAD_CREATE __wrap_pthread_create
static void find_real(void) {}
#else
/* libcpc.so comes before libc in the program's lookup order: its pthread_create is the program's. */
static pthread_create_fn real;
#define PTHREAD_CREATE pthread_create

static void find_real(void) {
  void* next = dlsym(RTLD_NEXT, "pthread_create");
  memcpy(&real, &next, sizeof real); /* POSIX: dlsym's answer is the function's address */
}
#endif
static pthread_once_t real_once = PTHREAD_ONCE_INIT;

int PTHREAD_CREATE(pthread_t* thread, const pthread_attr_t* attr, void* (*start)(void*), void* arg) {
  pthread_once(&real_once, find_real);
  if (real == NULL) return EAGAIN;
  const cpc_binding* binding = cpc_thread_binding();
  if (binding == NULL || binding->session == NULL || !(binding->flags & CPC_BIND_LWP_INHERIT))
    return real(thread, attr, start, arg);
  inherited* context = malloc(sizeof *context);
  if (context == NULL) return EAGAIN;
  context->start = start;
  context->arg = arg;
  context->parent = *binding;
  context->parent.session = NULL;
  const int err = real(thread, attr, start_bound, context);
  if (err != 0) free(context);
  return err;
}
