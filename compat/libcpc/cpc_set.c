/* The second interface: cpc_open, sets of requests, buffers, cpc_bind_curlwp and friends. */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "binding.h"

struct __cpc {
  int version;
};

struct __cpc_set {
  int count;
  cpc_request requests[CPC_MAX_REQUESTS];
  cpc_binding* binding; /* bound to another thread or a CPU; the calling thread's binding is its own */
};

struct __cpc_buf {
  int count;
  uint64_t values[CPC_MAX_REQUESTS];
  hrtime_t hrt;
  uint64_t tick;
};

struct __pctx {
  pid_t pid;
};

static cpc_errhndlr_t* error_handler;

static void report_to_handler(const char* fn, const char* fmt, va_list ap) {
  error_handler(fn, 0, fmt, ap);
}

cpc_t* cpc_open(int version) {
  if (version != CPC_VER_CURRENT) {
    errno = EINVAL;
    return NULL;
  }
  if (cpc_getcpuver() < 0) {
    errno = ENOSYS;
    return NULL;
  }
  cpc_t* cpc = calloc(1, sizeof *cpc);
  if (cpc != NULL) cpc->version = version;
  return cpc;
}

int cpc_close(cpc_t* cpc) {
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
  (void)cpc;
  return calloc(1, sizeof(cpc_set_t));
}

int cpc_set_destroy(cpc_t* cpc, cpc_set_t* set) {
  if (set == NULL) return 0;
  cpc_unbind(cpc, set);
  free(set);
  return 0;
}

int cpc_set_add_request(cpc_t* cpc, cpc_set_t* set, const char* event, uint64_t preset, unsigned int flags,
                        unsigned int nattrs, const cpc_attr_t* attrs) {
  (void)cpc;
  if (set == NULL || event == NULL || set->count == CPC_MAX_REQUESTS || set->binding != NULL) {
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
  (void)cpc;
  if (set == NULL || set->count == 0 || (flags & ~(unsigned)CPC_BIND_LWP_INHERIT) != 0) return failed(EINVAL);
  cpc_binding tag;
  memset(&tag, 0, sizeof tag);
  tag.set = set;
  unsigned bind_flags = flags;
  for (int k = 0; k < set->count; ++k)
    if (set->requests[k].notify) bind_flags |= CPC_BIND_EMT_OVF; /* inherited threads get SIGEMT too */
  return failed(cpc_bind_thread(set->requests, set->count, bind_flags, &tag));
}

static int bind_elsewhere(cpc_set_t* set, const perfmon_target* target) {
  if (set == NULL || set->count == 0 || set->binding != NULL) return failed(EINVAL);
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
  (void)cpc;
  if (pctx == NULL || flags != 0) return failed(EINVAL);
  /* Solaris numbers a process's LWPs from 1: LWP 1 is the main thread; other ids are Linux thread ids. */
  const perfmon_target target = {PERFMON_TARGET_THREAD, id == 1 ? pctx->pid : (pid_t)id, NULL, 0};
  return bind_elsewhere(set, &target);
}

int cpc_bind_cpu(cpc_t* cpc, int cpu, cpc_set_t* set, unsigned int flags) {
  (void)cpc;
  if (flags != 0) return failed(EINVAL);
  const perfmon_target target = {PERFMON_TARGET_CPUS, 0, &cpu, 1};
  return bind_elsewhere(set, &target);
}

/* The binding that samples `set`: its own, or the calling thread's when the set is bound there. */
static cpc_binding* binding_of(cpc_set_t* set) {
  if (set == NULL) return NULL;
  if (set->binding != NULL) return set->binding;
  cpc_binding* own = cpc_thread_binding();
  return own != NULL && own->set == set ? own : NULL;
}

int cpc_unbind(cpc_t* cpc, cpc_set_t* set) {
  (void)cpc;
  if (set != NULL && set->binding != NULL) {
    cpc_binding_close(set->binding);
    free(set->binding);
    set->binding = NULL;
    return 0;
  }
  if (binding_of(set) == NULL) return failed(EINVAL);
  cpc_unbind_thread();
  return 0;
}

int cpc_set_sample(cpc_t* cpc, cpc_set_t* set, cpc_buf_t* buf) {
  (void)cpc;
  cpc_binding* binding = binding_of(set);
  if (binding == NULL || buf == NULL || buf->count != binding->count) return failed(EINVAL);
  return failed(cpc_binding_read(binding, buf->values, &buf->hrt, &buf->tick));
}

int cpc_set_restart(cpc_t* cpc, cpc_set_t* set) {
  (void)cpc;
  return failed(cpc_binding_restart(binding_of(set)));
}

/* ---- Buffers --------------------------------------------------------------------------------- */

cpc_buf_t* cpc_buf_create(cpc_t* cpc, cpc_set_t* set) {
  (void)cpc;
  if (set == NULL) {
    errno = EINVAL;
    return NULL;
  }
  cpc_buf_t* buf = calloc(1, sizeof *buf);
  if (buf != NULL) buf->count = set->count;
  return buf;
}

int cpc_buf_destroy(cpc_t* cpc, cpc_buf_t* buf) {
  (void)cpc;
  free(buf);
  return 0;
}

int cpc_buf_get(cpc_t* cpc, cpc_buf_t* buf, int index, uint64_t* value) {
  (void)cpc;
  if (buf == NULL || value == NULL || index < 0 || index >= buf->count) return failed(EINVAL);
  *value = buf->values[index];
  return 0;
}

int cpc_buf_set(cpc_t* cpc, cpc_buf_t* buf, int index, uint64_t value) {
  (void)cpc;
  if (buf == NULL || index < 0 || index >= buf->count) return failed(EINVAL);
  buf->values[index] = value;
  return 0;
}

hrtime_t cpc_buf_hrtime(cpc_t* cpc, cpc_buf_t* buf) {
  (void)cpc;
  return buf == NULL ? 0 : buf->hrt;
}

uint64_t cpc_buf_tick(cpc_t* cpc, cpc_buf_t* buf) {
  (void)cpc;
  return buf == NULL ? 0 : buf->tick;
}

/* Solaris' buffer arithmetic: of buffers of the same set; the time and tick of the later one. */
void cpc_buf_sub(cpc_t* cpc, cpc_buf_t* ds, cpc_buf_t* a, cpc_buf_t* b) {
  (void)cpc;
  if (ds == NULL || a == NULL || b == NULL || a->count != b->count || ds->count != a->count) return;
  for (int k = 0; k < ds->count; ++k) ds->values[k] = a->values[k] - b->values[k];
  ds->hrt = a->hrt > b->hrt ? a->hrt : b->hrt;
  ds->tick = a->tick - b->tick;
}

void cpc_buf_add(cpc_t* cpc, cpc_buf_t* ds, cpc_buf_t* a, cpc_buf_t* b) {
  (void)cpc;
  if (ds == NULL || a == NULL || b == NULL || a->count != b->count || ds->count != a->count) return;
  for (int k = 0; k < ds->count; ++k) ds->values[k] = a->values[k] + b->values[k];
  ds->hrt = a->hrt > b->hrt ? a->hrt : b->hrt;
  ds->tick = a->tick + b->tick;
}

void cpc_buf_copy(cpc_t* cpc, cpc_buf_t* ds, cpc_buf_t* src) {
  (void)cpc;
  if (ds != NULL && src != NULL && ds->count == src->count) *ds = *src;
}

void cpc_buf_zero(cpc_t* cpc, cpc_buf_t* buf) {
  (void)cpc;
  if (buf == NULL) return;
  const int count = buf->count;
  memset(buf, 0, sizeof *buf);
  buf->count = count;
}
