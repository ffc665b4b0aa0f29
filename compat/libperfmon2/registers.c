/* SPDX-License-Identifier: Apache-2.0 */
#include "registers.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "machine.h"

/* x86 PERFEVTSEL bits (Intel SDM vol. 3B 20.2; AMD APM vol. 2 13.2). */
#define EVTSEL_USR (1ULL << 16)
#define EVTSEL_OS (1ULL << 17)
#define EVTSEL_INT (1ULL << 20)
#define EVTSEL_EN (1ULL << 22)
/* What perf takes as a raw x86 event: event, umask, edge, pin control, any, inv, cmask, and AMD's
 * event bits 11:8 (32-35). USR and OS become perf's exclusions; INT and EN perf sets itself. */
#define EVTSEL_RAW 0x0000000FFFACFFFFULL
/* arm64 PMEVTYPER_EL0 / PMCCFILTR_EL0: the event number, and P, U to leave out EL1, EL0. */
#define EVTYPER_EVENT 0xFFFFULL
#define EVTYPER_U (1ULL << 30)
#define EVTYPER_P (1ULL << 31)
#define ARM64_CYCLE_PAIR 31

static int hardware_pairs, counter_width = 64;
static int amd;
static pthread_once_t probed = PTHREAD_ONCE_INIT;

static void probe(void) {
  perfmon_cpu_info info;
  if (pfm2_catalog() == NULL || perfmon_cpu_info_get(pfm2_catalog(), &info) != 0 || !info.hardware_pmu) return;
  hardware_pairs = info.general_counters > 0 ? info.general_counters : 0;
  if (hardware_pairs > 31) hardware_pairs = 31;
  if (info.general_width > 0) counter_width = info.general_width;
  amd = strcmp(info.vendor, "AuthenticAMD") == 0 || strcmp(info.vendor, "HygonGenuine") == 0;
}

int pfm2_hardware_pairs(void) {
  pthread_once(&probed, probe);
  return hardware_pairs;
}

int pfm2_counter_width(void) {
  pthread_once(&probed, probe);
  return counter_width;
}

static int is_virtual(unsigned n) {
  return n >= PFM_FIRST_VIRTUAL_PMC && n < PFM_FIRST_VIRTUAL_PMC + PFM_VIRTUAL_PMCS;
}

static int is_arm64_cycle_pair(unsigned n) {
#if defined(__aarch64__)
  return n == ARM64_CYCLE_PAIR && pfm2_hardware_pairs() > 0;
#else
  (void)n;
  return 0;
#endif
}

int pfm2_register_exists(unsigned n) {
  return n < (unsigned)pfm2_hardware_pairs() || is_arm64_cycle_pair(n) || is_virtual(n);
}

int pfm2_register_info(unsigned n, int pmc, pfarg_pmcinfo_t* info) {
  if (!pfm2_register_exists(n)) return -1;
  info->reg_def_value = 0;
  if (is_virtual(n)) {
    info->reg_type = PFM_REG_TYPE_VIRTUAL;
    info->reg_index = PFM_REG_IDX_NONE;
    info->reg_rsvd_mask =
        pmc ? ~(PFM_VIRTUAL_EVENT(0xff, 0xffffffffu) | PFM_VIRTUAL_NO_USER | PFM_VIRTUAL_NO_KERNEL) : 0;
    return 0;
  }
#if defined(__aarch64__)
  /* System registers, named: PMEVTYPER<n>_EL0 / PMEVCNTR<n>_EL0, the index being n. */
  info->reg_type = PFM_REG_TYPE_SPR;
  info->reg_index = is_arm64_cycle_pair(n) ? PFM_REG_IDX_NONE : n;
  info->reg_rsvd_mask = pmc ? ~(EVTYPER_EVENT | EVTYPER_U | EVTYPER_P) : 0;
  if (pmc && is_arm64_cycle_pair(n)) info->reg_rsvd_mask = ~(EVTYPER_U | EVTYPER_P);
#else
  info->reg_type = PFM_REG_TYPE_MSR;
  if (amd)
    info->reg_index = pmc ? 0xC0010200u + 2 * n : 0xC0010201u + 2 * n; /* PerfEvtSel<n>, PerfCtr<n> */
  else
    info->reg_index = pmc ? 0x186u + n : 0xC1u + n; /* IA32_PERFEVTSELn, IA32_PMCn */
  info->reg_rsvd_mask =
      pmc ? ~(EVTSEL_RAW | EVTSEL_USR | EVTSEL_OS | EVTSEL_INT | EVTSEL_EN) : ~0ULL << (unsigned)pfm2_counter_width();
#endif
  return 0;
}

/* ":u", ":k" or "" from whether user and kernel mode count; NULL when neither does. */
static const char* privilege_modifier(int user, int kernel) {
  if (user && kernel) return "";
  if (user) return ":u";
  if (kernel) return ":k";
  return NULL;
}

static int print(char* text, size_t size, const char* format, unsigned long long a, const char* modifier) {
  const int length = snprintf(text, size, format, a, modifier);
  return length > 0 && (size_t)length < size ? 1 : -1;
}

int pfm2_event_of(unsigned n, uint64_t value, char* text, size_t size) {
  if (is_virtual(n)) {
    if (value == 0) return 0;
    if (value & ~(PFM_VIRTUAL_EVENT(0xff, 0xffffffffu) | PFM_VIRTUAL_NO_USER | PFM_VIRTUAL_NO_KERNEL)) return -1;
    const unsigned type = (unsigned)(value >> 32) & 0xff;
    const unsigned long long config = value & 0xffffffffu;
    const char* modifier = privilege_modifier(!(value & PFM_VIRTUAL_NO_USER), !(value & PFM_VIRTUAL_NO_KERNEL));
    if (modifier == NULL) return 0;
    if (type == 1) return print(text, size, "software/config=%llu/%s", config, modifier[0] ? modifier + 1 : "");
    if (type == 2) return print(text, size, "tracepoint/config=%llu/%s", config, modifier[0] ? modifier + 1 : "");
    return -1;
  }
#if defined(__aarch64__)
  if (value & ~(EVTYPER_EVENT | EVTYPER_U | EVTYPER_P)) return -1;
  const char* modifier = privilege_modifier(!(value & EVTYPER_U), !(value & EVTYPER_P));
  if (modifier == NULL) return 0;
  if (is_arm64_cycle_pair(n)) {
    if (value & EVTYPER_EVENT) return -1;
    return print(text, size, "r%llx%s", 0x11, modifier); /* CPU_CYCLES */
  }
  return print(text, size, "r%llx%s", value & EVTYPER_EVENT, modifier);
#else
  if (value == 0) return 0;
  if (value & ~(EVTSEL_RAW | EVTSEL_USR | EVTSEL_OS | EVTSEL_INT | EVTSEL_EN)) return -1;
  const char* modifier = privilege_modifier((value & EVTSEL_USR) != 0, (value & EVTSEL_OS) != 0);
  if (!(value & EVTSEL_EN) || modifier == NULL) return 0;
  return print(text, size, "r%llx%s", value & EVTSEL_RAW, modifier);
#endif
}

/* Linux's software events (include/uapi/linux/perf_event.h, enum perf_sw_ids), by perf's names. */
static const char* const software_events[] = {"cpu-clock",        "task-clock",       "page-faults",
                                              "context-switches", "cpu-migrations",   "minor-faults",
                                              "major-faults",     "alignment-faults", "emulation-faults"};

int pfm_virtual_pmc_value(const char* event, uint64_t* value) {
  if (event == NULL || value == NULL) return pfm2_fail(EINVAL, "pfm_virtual_pmc_value takes a name and a value");
  for (unsigned k = 0; k < sizeof software_events / sizeof software_events[0]; ++k)
    if (strcmp(event, software_events[k]) == 0) {
      *value = PFM_VIRTUAL_EVENT(1, k);
      return 0;
    }
  const char* colon = strchr(event, ':');
  if (colon != NULL && colon != event && colon[1] != '\0' && strchr(colon + 1, ':') == NULL &&
      strchr(event, '/') == NULL && strstr(event, "..") == NULL) {
    const char* roots[] = {"/sys/kernel/tracing/events", "/sys/kernel/debug/tracing/events"};
    for (unsigned k = 0; k < 2; ++k) {
      char path[512];
      snprintf(path, sizeof path, "%s/%.*s/%s/id", roots[k], (int)(colon - event), event, colon + 1);
      FILE* file = fopen(path, "re");
      if (file == NULL) continue;
      unsigned long long id = 0;
      const int found = fscanf(file, "%llu", &id) == 1;
      fclose(file);
      if (found) {
        *value = PFM_VIRTUAL_EVENT(2, id);
        return 0;
      }
    }
  }
  return pfm2_fail(ENOENT,
                   "'%s' is neither a software event (page-faults, task-clock, ...) nor a tracepoint under "
                   "/sys/kernel/tracing/events (as root, or with tracefs readable)",
                   event);
}
