/* SPDX-License-Identifier: Apache-2.0 */
/* The second interface: cpc_open, sets of requests, buffers, cpc_bind_curlwp and friends. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "binding.h"

/* As Solaris does, a handle keeps the sets and buffers made through it, and every call checks that
 * the set or buffer it is given is one of them: a destroyed one (destroyed twice, used after) or a
 * stray pointer is EINVAL, never freed or touched. The open handles are kept the same way. */
struct __cpc {
  int version;
  cpc_set_t* sets;
  cpc_buf_t* bufs;
  cpc_t* next;
};

struct __cpc_set {
  int count;
  cpc_request requests[CPC_MAX_REQUESTS];
  cpc_binding* binding; /* bound to another thread or a CPU; the calling thread's binding is its own */
  cpc_set_t* next;
};

struct __cpc_buf {
  int count;
  uint64_t values[CPC_MAX_REQUESTS];
  hrtime_t hrt;
  uint64_t tick;
  cpc_buf_t* next;
};

static pthread_mutex_t handles_lock = PTHREAD_MUTEX_INITIALIZER;
static cpc_t* open_handles;

/* Signals stay blocked while the lock is held, as Solaris' cpc_lock does: an overflow handler that
 * samples its set takes the lock too, and must not find it held by the code it interrupted. */
static void lock_handles(sigset_t* saved) {
  sigset_t all;
  sigfillset(&all);
  pthread_sigmask(SIG_BLOCK, &all, saved);
  pthread_mutex_lock(&handles_lock);
}

static void unlock_handles(const sigset_t* saved) {
  pthread_mutex_unlock(&handles_lock);
  pthread_sigmask(SIG_SETMASK, saved, NULL);
}

static int handle_is_open(const cpc_t* cpc) {
  for (const cpc_t* open = open_handles; open != NULL; open = open->next)
    if (open == cpc) return 1;
  return 0;
}

/* Whether `set` (`buf`) was made through the open handle `cpc` and not destroyed. */
static int set_is_known(const cpc_t* cpc, const cpc_set_t* set) {
  sigset_t saved;
  lock_handles(&saved);
  int known = 0;
  if (set != NULL && handle_is_open(cpc))
    for (const cpc_set_t* made = cpc->sets; made != NULL && !known; made = made->next) known = made == set;
  unlock_handles(&saved);
  return known;
}

static int buf_is_known(const cpc_t* cpc, const cpc_buf_t* buf) {
  sigset_t saved;
  lock_handles(&saved);
  int known = 0;
  if (buf != NULL && handle_is_open(cpc))
    for (const cpc_buf_t* made = cpc->bufs; made != NULL && !known; made = made->next) known = made == buf;
  unlock_handles(&saved);
  return known;
}

struct __pctx {
  pid_t pid;
};

static cpc_errhndlr_t* error_handler;

static void report_to_handler(const char* fn, const char* fmt, va_list ap) {
  error_handler(fn, 0, fmt, ap);
}

cpc_t* cpc_open(int version) {
  sigset_t saved;
  if (version != CPC_VER_CURRENT) {
    errno = EINVAL;
    return NULL;
  }
  if (cpc_getcpuver() < 0) {
    errno = ENOSYS;
    return NULL;
  }
  cpc_t* cpc = calloc(1, sizeof *cpc);
  if (cpc == NULL) return NULL;
  cpc->version = version;
  lock_handles(&saved);
  cpc->next = open_handles;
  open_handles = cpc;
  unlock_handles(&saved);
  return cpc;
}

/* Solaris' cpc_close unbinds and frees every set and buffer of the handle. */
int cpc_close(cpc_t* cpc) {
  sigset_t saved;
  lock_handles(&saved);
  cpc_t** link = &open_handles;
  while (*link != NULL && *link != cpc) link = &(*link)->next;
  if (*link == NULL) {
    unlock_handles(&saved);
    errno = EINVAL;
    return -1;
  }
  *link = cpc->next;
  unlock_handles(&saved);
  for (cpc_set_t* set = cpc->sets; set != NULL;) {
    cpc_set_t* next = set->next;
    if (set->binding != NULL) {
      cpc_binding_close(set->binding);
      free(set->binding);
    } else if (cpc_thread_binding() != NULL && cpc_thread_binding()->set == set) {
      cpc_unbind_thread();
    }
    free(set);
    set = next;
  }
  for (cpc_buf_t* buf = cpc->bufs; buf != NULL;) {
    cpc_buf_t* next = buf->next;
    free(buf);
    buf = next;
  }
  free(cpc);
  return 0;
}

unsigned int cpc_npic(cpc_t* cpc) {
  (void)cpc;
  return cpc_getnpic(cpc_getcpuver());
}

unsigned int cpc_caps(cpc_t* cpc) {
  (void)cpc;
  return CPC_CAP_OVERFLOW_INTERRUPT;
}

const char* cpc_cciname(cpc_t* cpc) {
  (void)cpc;
  return cpc_getcciname(cpc_getcpuver());
}

const char* cpc_cpuref(cpc_t* cpc) {
  (void)cpc;
  return cpc_getcpuref(cpc_getcpuver());
}

int cpc_seterrhndlr(cpc_t* cpc, cpc_errhndlr_t* fn) {
  (void)cpc;
  error_handler = fn;
  cpc_report_hook = fn != NULL ? report_to_handler : cpc_default_report;
  return 0;
}

/* ---- Sets ------------------------------------------------------------------------------------ */

cpc_set_t* cpc_set_create(cpc_t* cpc) {
  sigset_t saved;
  lock_handles(&saved);
  cpc_set_t* set = NULL;
  if (!handle_is_open(cpc))
    errno = EINVAL;
  else if ((set = calloc(1, sizeof *set)) != NULL) {
    set->next = cpc->sets;
    cpc->sets = set;
  }
  unlock_handles(&saved);
  return set;
}

/* Takes `set` off its handle's list; false if it is not there. */
static int forget_set(cpc_t* cpc, cpc_set_t* set) {
  sigset_t saved;
  lock_handles(&saved);
  int found = 0;
  if (handle_is_open(cpc))
    for (cpc_set_t** link = &cpc->sets; *link != NULL; link = &(*link)->next)
      if (*link == set) {
        *link = set->next;
        found = 1;
        break;
      }
  unlock_handles(&saved);
  return found;
}

int cpc_set_destroy(cpc_t* cpc, cpc_set_t* set) {
  if (!set_is_known(cpc, set)) {
    errno = EINVAL;
    return -1;
  }
  cpc_unbind(cpc, set);
  if (!forget_set(cpc, set)) { /* destroyed meanwhile by another thread */
    errno = EINVAL;
    return -1;
  }
  free(set);
  return 0;
}

int cpc_set_add_request(cpc_t* cpc, cpc_set_t* set, const char* event, uint64_t preset, unsigned int flags,
                        unsigned int nattrs, const cpc_attr_t* attrs) {
  if (!set_is_known(cpc, set)) {
    cpc_report("cpc_set_add_request", "the set was not made with this handle, or it was destroyed");
    errno = EINVAL;
    return -1;
  }
  if (event == NULL || set->count == CPC_MAX_REQUESTS || set->binding != NULL) {
    cpc_report("cpc_set_add_request", "no set or event, the set is full (%d requests), or it is bound",
               CPC_MAX_REQUESTS);
    errno = EINVAL;
    return -1;
  }
  if (!(flags & (CPC_COUNT_USER | CPC_COUNT_SYSTEM))) {
    cpc_report("cpc_set_add_request", "'%s' would count nothing: give CPC_COUNT_USER, CPC_COUNT_SYSTEM or both", event);
    errno = EINVAL;
    return -1;
  }
  cpc_request request;
  memset(&request, 0, sizeof request);
  int n = snprintf(request.event, sizeof request.event, "%s%s%s", event, flags & CPC_COUNT_SYSTEM ? ",sys" : "",
                   flags & CPC_COUNT_USER ? "" : ",nouser");
  for (unsigned a = 0; a < nattrs && n > 0 && (size_t)n < sizeof request.event; ++a) {
    const size_t used = (size_t)n;
    n += snprintf(request.event + used, sizeof request.event - used, ",%.*s=%llu", CPC_MAX_ATTR_LEN, attrs[a].ca_name,
                  (unsigned long long)attrs[a].ca_val);
  }
  char spec[CPC_EVENT_TEXT + 16];
  if (n < 0 || (size_t)n >= sizeof request.event ||
      snprintf(spec, sizeof spec, "cpc/pic0=%s/", request.event) >= (int)sizeof spec) {
    cpc_report("cpc_set_add_request", "the request '%s' is too long", event);
    errno = EINVAL;
    return -1;
  }
  if (perfmon_catalog_check(cpc_catalog(), spec) != 0) {
    cpc_report("cpc_set_add_request", "%s", perfmon_last_error());
    errno = EINVAL;
    return -1;
  }
  request.preset = preset;
  request.notify = (flags & CPC_OVF_NOTIFY_EMT) != 0;
  set->requests[set->count] = request;
  return set->count++;
}

int cpc_request_preset(cpc_t* cpc, int index, uint64_t preset) {
  (void)cpc;
  cpc_binding* binding = cpc_thread_binding();
  if (binding == NULL || binding->set == NULL || index < 0 || index >= binding->count) {
    errno = EINVAL;
    return -1;
  }
  binding->requests[index].preset = preset;
  binding->set->requests[index].preset = preset;
  return 0;
}

/* ---- Binding --------------------------------------------------------------------------------- */

static int failed(int err) {
  errno = err;
  return err == 0 ? 0 : -1;
}

int cpc_bind_curlwp(cpc_t* cpc, cpc_set_t* set, unsigned int flags) {
  if (!set_is_known(cpc, set) || set->count == 0 || (flags & ~(unsigned)CPC_BIND_LWP_INHERIT) != 0)
    return failed(EINVAL);
  cpc_binding tag;
  memset(&tag, 0, sizeof tag);
  tag.set = set;
  unsigned bind_flags = flags;
  for (int k = 0; k < set->count; ++k)
    if (set->requests[k].notify) bind_flags |= CPC_BIND_EMT_OVF; /* inherited threads get SIGEMT too */
  return failed(cpc_bind_thread(set->requests, set->count, bind_flags, &tag));
}

static int bind_elsewhere(cpc_t* cpc, cpc_set_t* set, const perfmon_target* target) {
  if (!set_is_known(cpc, set) || set->count == 0 || set->binding != NULL) return failed(EINVAL);
  cpc_binding* binding = calloc(1, sizeof *binding);
  if (binding == NULL) return failed(ENOMEM);
  const int err = cpc_binding_open(binding, set->requests, set->count, target, 0);
  if (err != 0) {
    free(binding);
    return failed(err);
  }
  binding->set = set;
  set->binding = binding;
  return 0;
}

pctx_t* pctx_capture(pid_t pid, void* arg, int verbose, void (*errfn)(const char*, const char*, va_list)) {
  (void)arg;
  (void)verbose;
  (void)errfn;
  if (pid <= 0 || (kill(pid, 0) != 0 && errno == ESRCH)) {
    errno = ESRCH;
    return NULL;
  }
  pctx_t* pctx = calloc(1, sizeof *pctx);
  if (pctx != NULL) pctx->pid = pid;
  return pctx;
}

void pctx_release(pctx_t* pctx) {
  free(pctx);
}

int cpc_bind_pctx(cpc_t* cpc, pctx_t* pctx, id_t id, cpc_set_t* set, unsigned int flags) {
  if (pctx == NULL || flags != 0) return failed(EINVAL);
  /* Solaris numbers a process's LWPs from 1: LWP 1 is the main thread; other ids are Linux thread ids. */
  const perfmon_target target = {PERFMON_TARGET_THREAD, id == 1 ? pctx->pid : (pid_t)id, NULL, 0};
  return bind_elsewhere(cpc, set, &target);
}

int cpc_bind_cpu(cpc_t* cpc, int cpu, cpc_set_t* set, unsigned int flags) {
  if (flags != 0) return failed(EINVAL);
  const perfmon_target target = {PERFMON_TARGET_CPUS, 0, &cpu, 1};
  return bind_elsewhere(cpc, set, &target);
}

/* The binding that samples `set`: its own, or the calling thread's when the set is bound there. */
static cpc_binding* binding_of(cpc_t* cpc, cpc_set_t* set) {
  if (!set_is_known(cpc, set)) return NULL;
  if (set->binding != NULL) return set->binding;
  cpc_binding* own = cpc_thread_binding();
  return own != NULL && own->set == set ? own : NULL;
}

int cpc_unbind(cpc_t* cpc, cpc_set_t* set) {
  if (!set_is_known(cpc, set)) return failed(EINVAL);
  if (set->binding != NULL) {
    cpc_binding_close(set->binding);
    free(set->binding);
    set->binding = NULL;
    return 0;
  }
  if (binding_of(cpc, set) == NULL) return failed(EINVAL);
  cpc_unbind_thread();
  return 0;
}

int cpc_set_sample(cpc_t* cpc, cpc_set_t* set, cpc_buf_t* buf) {
  cpc_binding* binding = binding_of(cpc, set);
  if (binding == NULL || !buf_is_known(cpc, buf) || buf->count != binding->count) return failed(EINVAL);
  return failed(cpc_binding_read(binding, buf->values, &buf->hrt, &buf->tick));
}

int cpc_set_restart(cpc_t* cpc, cpc_set_t* set) {
  return failed(cpc_binding_restart(binding_of(cpc, set)));
}

/* ---- Buffers --------------------------------------------------------------------------------- */

cpc_buf_t* cpc_buf_create(cpc_t* cpc, cpc_set_t* set) {
  sigset_t saved;
  if (!set_is_known(cpc, set)) {
    errno = EINVAL;
    return NULL;
  }
  cpc_buf_t* buf = calloc(1, sizeof *buf);
  if (buf == NULL) return NULL;
  buf->count = set->count;
  lock_handles(&saved);
  buf->next = cpc->bufs;
  cpc->bufs = buf;
  unlock_handles(&saved);
  return buf;
}

int cpc_buf_destroy(cpc_t* cpc, cpc_buf_t* buf) {
  sigset_t saved;
  lock_handles(&saved);
  int found = 0;
  if (buf != NULL && handle_is_open(cpc))
    for (cpc_buf_t** link = &cpc->bufs; *link != NULL; link = &(*link)->next)
      if (*link == buf) {
        *link = buf->next;
        found = 1;
        break;
      }
  unlock_handles(&saved);
  if (!found) return failed(EINVAL);
  free(buf);
  return 0;
}

int cpc_buf_get(cpc_t* cpc, cpc_buf_t* buf, int index, uint64_t* value) {
  if (!buf_is_known(cpc, buf) || value == NULL || index < 0 || index >= buf->count) return failed(EINVAL);
  *value = buf->values[index];
  return 0;
}

int cpc_buf_set(cpc_t* cpc, cpc_buf_t* buf, int index, uint64_t value) {
  if (!buf_is_known(cpc, buf) || index < 0 || index >= buf->count) return failed(EINVAL);
  buf->values[index] = value;
  return 0;
}

hrtime_t cpc_buf_hrtime(cpc_t* cpc, cpc_buf_t* buf) {
  return buf_is_known(cpc, buf) ? buf->hrt : 0;
}

uint64_t cpc_buf_tick(cpc_t* cpc, cpc_buf_t* buf) {
  return buf_is_known(cpc, buf) ? buf->tick : 0;
}

/* Buffers of one handle and of the same set's size. */
static int bufs_match(cpc_t* cpc, const cpc_buf_t* ds, const cpc_buf_t* a, const cpc_buf_t* b) {
  return buf_is_known(cpc, ds) && buf_is_known(cpc, a) && buf_is_known(cpc, b) && a->count == b->count &&
         ds->count == a->count;
}

/* Solaris' buffer arithmetic: of buffers of the same set; the time and tick of the later one. */
void cpc_buf_sub(cpc_t* cpc, cpc_buf_t* ds, cpc_buf_t* a, cpc_buf_t* b) {
  if (!bufs_match(cpc, ds, a, b)) return;
  for (int k = 0; k < ds->count; ++k) ds->values[k] = a->values[k] - b->values[k];
  ds->hrt = a->hrt > b->hrt ? a->hrt : b->hrt;
  ds->tick = a->tick - b->tick;
}

void cpc_buf_add(cpc_t* cpc, cpc_buf_t* ds, cpc_buf_t* a, cpc_buf_t* b) {
  if (!bufs_match(cpc, ds, a, b)) return;
  for (int k = 0; k < ds->count; ++k) ds->values[k] = a->values[k] + b->values[k];
  ds->hrt = a->hrt > b->hrt ? a->hrt : b->hrt;
  ds->tick = a->tick + b->tick;
}

void cpc_buf_copy(cpc_t* cpc, cpc_buf_t* ds, cpc_buf_t* src) {
  if (!bufs_match(cpc, ds, src, src)) return;
  cpc_buf_t* const next = ds->next; /* the copy keeps its own place on the handle's list */
  *ds = *src;
  ds->next = next;
}

void cpc_buf_zero(cpc_t* cpc, cpc_buf_t* buf) {
  if (!buf_is_known(cpc, buf)) return;
  const int count = buf->count;
  cpc_buf_t* const next = buf->next;
  memset(buf, 0, sizeof *buf);
  buf->count = count;
  buf->next = next;
}
