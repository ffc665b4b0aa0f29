/* SPDX-License-Identifier: Apache-2.0 */
/* The first interface: cpc_event_t and cpc_bind_event(3CPC). */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "binding.h"

/* ---- The CPU --------------------------------------------------------------------------------- */

enum { CPUVER_SOFTWARE = 0, CPUVER_INTEL = 1, CPUVER_AMD = 2, CPUVER_ARM = 3, CPUVER_OTHER = 4 };

static pthread_once_t cpu_once = PTHREAD_ONCE_INIT;
static perfmon_cpu_info cpu;
static int cpu_known;
static char cciname[256];

static void read_cpu(void) {
  perfmon_catalog* events = cpc_catalog();
  cpu_known = events != NULL && perfmon_cpu_info_get(events, &cpu) == 0;
  if (!cpu_known) return;
  if (cpu.hardware_pmu)
    snprintf(cciname, sizeof cciname, "%s %s (PMU %s) through perf_event_open", cpu.vendor, cpu.model, cpu.pmu_name);
  else
    snprintf(cciname, sizeof cciname, "%s %s: software events and tracepoints only (no PMU)", cpu.vendor, cpu.model);
}

int cpc_getcpuver(void) {
  pthread_once(&cpu_once, read_cpu);
  if (!cpu_known) return -1;
  if (!cpu.hardware_pmu) return CPUVER_SOFTWARE;
  if (strcmp(cpu.vendor, "GenuineIntel") == 0) return CPUVER_INTEL;
  if (strcmp(cpu.vendor, "AuthenticAMD") == 0 || strcmp(cpu.vendor, "HygonGenuine") == 0) return CPUVER_AMD;
  if (strcmp(cpu.vendor, "ARM") == 0) return CPUVER_ARM;
  return CPUVER_OTHER;
}

const char* cpc_getcciname(int cpuver) {
  return cpuver == cpc_getcpuver() && cpuver >= 0 ? cciname : NULL;
}

const char* cpc_getcpuref(int cpuver) {
  if (cpuver != cpc_getcpuver() || cpuver < 0) return NULL;
  return "Event names: 'perfmon list' (perf's names, tracepoints and this CPU's own). See the CPU vendor's "
         "manual for what each counts (Intel SDM volume 3B chapters 19-20, AMD PPR, Arm ARM D7).";
}

unsigned int cpc_getnpic(int cpuver) {
  if (cpuver != cpc_getcpuver() || cpuver < 0) return 0;
  /* Software events and tracepoints take no hardware counter: every pic can hold one. */
  if (!cpu.hardware_pmu || cpu.general_counters < 0) return CPC_MAX_PICS;
  const int counters = cpu.general_counters + (cpu.fixed_counters > 0 ? cpu.fixed_counters : 0);
  return counters < CPC_MAX_PICS ? (unsigned)counters : CPC_MAX_PICS;
}

int cpc_version(unsigned int version) {
  return version == CPC_VER_1 || version == CPC_VER_CURRENT ? CPC_VER_CURRENT : CPC_VER_NONE;
}

int cpc_access(void) {
  perfmon_catalog* events = cpc_catalog();
  if (events == NULL) {
    errno = ENOMEM;
    return -1;
  }
  perfmon_session_options options;
  memset(&options, 0, sizeof options);
  options.no_inherit = 1;
  options.fail_unsupported = 1;
  const perfmon_target self = {PERFMON_TARGET_SELF, 0, NULL, 0};
  perfmon_session* session = NULL;
  const int err = perfmon_session_open(events, "task-clock", &self, &options, &session);
  perfmon_session_close(session);
  if (err == 0) return 0;
  cpc_report("cpc_access", "%s", perfmon_last_error());
  errno = err == EPERM || err == EACCES ? EACCES : ENXIO;
  return -1;
}

/* ---- Specifications -------------------------------------------------------------------------- */

/* cpc_strtoevent's specifications, kept for the life of the process: a cpc_event_t names one by
 * number (ce_setting), so that copies of it, and samples taken of it, can be bound again. */
typedef struct setting {
  char pic[CPC_MAX_PICS][CPC_EVENT_TEXT]; /* "" where the specification names no event */
  char terms[CPC_EVENT_TEXT];             /* sys, nouser, attributes */
} setting;

static pthread_mutex_t settings_lock = PTHREAD_MUTEX_INITIALIZER;
static setting** settings;
static uint32_t setting_count;

static const setting* setting_of(const cpc_event_t* event) {
  pthread_mutex_lock(&settings_lock);
  const setting* found =
      event->ce_setting >= 1 && event->ce_setting <= setting_count ? settings[event->ce_setting - 1] : NULL;
  pthread_mutex_unlock(&settings_lock);
  return found;
}

static uint32_t keep_setting(setting* parsed) {
  pthread_mutex_lock(&settings_lock);
  uint32_t id = 0;
  setting** grown = realloc(settings, sizeof *settings * (setting_count + 1));
  if (grown != NULL) {
    settings = grown;
    settings[setting_count++] = parsed;
    id = setting_count;
  }
  pthread_mutex_unlock(&settings_lock);
  return id;
}

static int append(char* out, size_t size, const char* text, size_t length) {
  const size_t used = strlen(out);
  if (used + length + 2 > size) return -1;
  if (used > 0) out[used] = ',';
  memcpy(out + used + (used > 0), text, length);
  out[used + (used > 0) + length] = '\0';
  return 0;
}

/* "pic0=A,pic1=B,sys" into its pics and its other terms. */
static int parse_spec(const char* spec, setting* parsed) {
  memset(parsed, 0, sizeof *parsed);
  int pics = 0;
  for (const char* token = spec; *token;) {
    const size_t length = strcspn(token, ",");
    unsigned pic;
    int name_at = 0;
    if (sscanf(token, "pic%u=%n", &pic, &name_at) == 1 && name_at > 0 && (size_t)name_at <= length) {
      if (pic >= CPC_MAX_PICS) {
        cpc_report("cpc_strtoevent", "pic%u: this library has pic0 to pic%d", pic, CPC_MAX_PICS - 1);
        return -1;
      }
      if (parsed->pic[pic][0] != '\0') {
        cpc_report("cpc_strtoevent", "pic%u is given twice", pic);
        return -1;
      }
      const size_t name_length = length - (size_t)name_at;
      if (name_length == 0 || name_length >= CPC_EVENT_TEXT) {
        cpc_report("cpc_strtoevent", "pic%u needs an event name", pic);
        return -1;
      }
      memcpy(parsed->pic[pic], token + name_at, name_length);
      ++pics;
    } else if (length > 0 && append(parsed->terms, sizeof parsed->terms, token, length) != 0) {
      cpc_report("cpc_strtoevent", "the specification is too long");
      return -1;
    }
    token += length + (token[length] == ',');
  }
  if (pics == 0) {
    cpc_report("cpc_strtoevent", "'%s' names no counter: write pic0=EVENT[,pic1=EVENT]", spec);
    return -1;
  }
  return 0;
}

/* The requests of a setting with the event's presets, pics in order; -1 when one is too long. */
static int requests_of(const setting* parsed, const cpc_event_t* event, int notify, cpc_request* requests,
                       cpc_binding* tag) {
  int count = 0;
  for (int pic = 0; pic < CPC_MAX_PICS; ++pic) {
    if (parsed->pic[pic][0] == '\0') continue;
    cpc_request* request = &requests[count];
    const int n = snprintf(request->event, sizeof request->event, "%s%s%s", parsed->pic[pic],
                           parsed->terms[0] ? "," : "", parsed->terms);
    if (n < 0 || (size_t)n >= sizeof request->event) return -1;
    request->preset = event->ce_pic[pic];
    request->notify = notify;
    tag->pic[count++] = pic;
  }
  return count;
}

int cpc_strtoevent(int cpuver, const char* spec, cpc_event_t* event) {
  if (spec == NULL || event == NULL || cpuver != cpc_getcpuver() || cpuver < 0) {
    cpc_report("cpc_strtoevent", "no specification, no event, or cpuver %d is not this CPU's", cpuver);
    errno = EINVAL;
    return -1;
  }
  setting* parsed = malloc(sizeof *parsed);
  if (parsed == NULL) {
    errno = ENOMEM;
    return -1;
  }
  cpc_request requests[CPC_MAX_REQUESTS];
  cpc_binding tag;
  cpc_event_t zero;
  memset(&zero, 0, sizeof zero);
  char list[CPC_MAX_PICS * (CPC_EVENT_TEXT + 16)];
  int ok = parse_spec(spec, parsed) == 0;
  if (ok) {
    const int count = requests_of(parsed, &zero, 0, requests, &tag);
    if (count < 0) cpc_report("cpc_strtoevent", "the specification is too long");
    ok = count > 0;
    /* The catalogue checks every name and term now, as Solaris does, not at bind time. */
    size_t used = 0;
    for (int k = 0; k < count && ok; ++k) {
      const int n = snprintf(list + used, sizeof list - used, "%scpc/pic0=%s/", k ? "," : "", requests[k].event);
      ok = n > 0 && (size_t)n < sizeof list - used;
      used += ok ? (size_t)n : 0;
    }
    if (ok && perfmon_catalog_check(cpc_catalog(), list) != 0) {
      cpc_report("cpc_strtoevent", "%s", perfmon_last_error());
      ok = 0;
    }
  }
  const uint32_t id = ok ? keep_setting(parsed) : 0;
  if (id == 0) {
    free(parsed);
    errno = EINVAL;
    return -1;
  }
  memset(event, 0, sizeof *event);
  event->ce_cpuver = cpuver;
  event->ce_setting = id;
  for (int pic = 0; pic < CPC_MAX_PICS; ++pic)
    if (parsed->pic[pic][0] != '\0') event->ce_npic = (uint32_t)pic + 1;
  return 0;
}

static __thread char spec_text[CPC_MAX_PICS * (CPC_EVENT_TEXT + 8) + CPC_EVENT_TEXT];

char* cpc_eventtostr(cpc_event_t* event) {
  const setting* parsed = event == NULL ? NULL : setting_of(event);
  if (parsed == NULL) return NULL;
  spec_text[0] = '\0';
  for (int pic = 0; pic < CPC_MAX_PICS; ++pic) {
    if (parsed->pic[pic][0] == '\0') continue;
    const size_t used = strlen(spec_text);
    snprintf(spec_text + used, sizeof spec_text - used, "%spic%d=%s", used ? "," : "", pic, parsed->pic[pic]);
  }
  if (parsed->terms[0] != '\0') {
    const size_t used = strlen(spec_text);
    snprintf(spec_text + used, sizeof spec_text - used, ",%s", parsed->terms);
  }
  return spec_text;
}

/* ---- Binding --------------------------------------------------------------------------------- */

int cpc_bind_event(cpc_event_t* event, int flags) {
  if (event == NULL) { /* unbinds, and no more signals */
    cpc_unbind_thread();
    return 0;
  }
  const setting* parsed = setting_of(event);
  if (parsed == NULL || (flags & ~(CPC_BIND_LWP_INHERIT | CPC_BIND_EMT_OVF)) != 0) {
    errno = EINVAL;
    return -1;
  }
  cpc_request requests[CPC_MAX_REQUESTS];
  cpc_binding tag;
  memset(&tag, 0, sizeof tag);
  tag.setting = event->ce_setting;
  const int count = requests_of(parsed, event, (flags & CPC_BIND_EMT_OVF) != 0, requests, &tag);
  const int err = count < 0 ? EINVAL : cpc_bind_thread(requests, count, (unsigned)flags, &tag);
  if (err != 0) {
    errno = err;
    return -1;
  }
  return 0;
}

int cpc_take_sample(cpc_event_t* event) {
  cpc_binding* binding = cpc_thread_binding();
  if (event == NULL || binding == NULL || binding->setting == 0) {
    errno = EINVAL; /* not bound (through this interface) */
    return -1;
  }
  uint64_t values[CPC_MAX_REQUESTS];
  hrtime_t hrt;
  uint64_t tick;
  const int err = cpc_binding_read(binding, values, &hrt, &tick);
  if (err != 0) {
    errno = err;
    return -1;
  }
  memset(event, 0, sizeof *event);
  event->ce_cpuver = cpc_getcpuver();
  event->ce_hrt = hrt;
  event->ce_tick = tick;
  event->ce_setting = binding->setting;
  for (int k = 0; k < binding->count; ++k) {
    event->ce_pic[binding->pic[k]] = values[k];
    if ((uint32_t)binding->pic[k] + 1 > event->ce_npic) event->ce_npic = (uint32_t)binding->pic[k] + 1;
  }
  return 0;
}

int cpc_rele(void) {
  cpc_unbind_thread();
  return 0;
}

void cpc_seterrfn(cpc_errfn_t* errfn) {
  cpc_report_hook = errfn != NULL ? errfn : cpc_default_report;
}
