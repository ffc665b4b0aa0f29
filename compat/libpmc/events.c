/* SPDX-License-Identifier: Apache-2.0 */
/* libpmc's specifiers translated into perfmon events (events.h). */
#define _GNU_SOURCE
#include "events.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

const char* const pmc_soft_names[6] = {"CLOCK.HARD",     "CLOCK.STAT",      "CLOCK.PROF",
                                       "PAGE_FAULT.ALL", "PAGE_FAULT.READ", "PAGE_FAULT.WRITE"};

/* pmc.soft's events on Linux. Page faults by access come from the page-fault tracepoints (x86),
 * filtered on the write bit of the error code; hardclock ticks from the local timer interrupt. */
typedef struct soft_event {
  const char* name;
  const char* events; /* "" when Linux has no counterpart */
  const char* filter;
  const char* missing; /* why, when it cannot be counted */
} soft_event;

static const soft_event soft_events[] = {
    {"CLOCK.HARD", "irq_vectors:local_timer_entry", NULL, NULL},
    {"CLOCK.STAT", "", NULL, "Linux has no statclock: count its timer ticks with CLOCK.HARD, or time with task-clock"},
    {"CLOCK.PROF", "", NULL, "Linux has no profclock: count its timer ticks with CLOCK.HARD, or time with task-clock"},
    {"PAGE_FAULT.ALL", "page-faults", NULL, NULL},
    {"PAGE_FAULT.READ", "exceptions:page_fault_user,exceptions:page_fault_kernel", "!(error_code & 2)", NULL},
    {"PAGE_FAULT.WRITE", "exceptions:page_fault_user,exceptions:page_fault_kernel", "error_code & 2", NULL},
};

enum pmc_class pmc_cpu_class(const perfmon_cpu_info* cpu) {
  if (strcmp(cpu->vendor, "GenuineIntel") == 0) return PMC_CLASS_IAP;
  if (strcmp(cpu->vendor, "AuthenticAMD") == 0 || strcmp(cpu->vendor, "HygonGenuine") == 0) return PMC_CLASS_K8;
  return PMC_CLASS_ARMV8;
}

static const uint32_t hardware_caps = PMC_CAP_INTERRUPT | PMC_CAP_USER | PMC_CAP_SYSTEM | PMC_CAP_EDGE |
                                      PMC_CAP_THRESHOLD | PMC_CAP_READ | PMC_CAP_WRITE | PMC_CAP_INVERT |
                                      PMC_CAP_QUALIFIER | PMC_CAP_PRECISE;
static const uint32_t software_caps = PMC_CAP_INTERRUPT | PMC_CAP_USER | PMC_CAP_SYSTEM | PMC_CAP_READ | PMC_CAP_WRITE;

static int fail(char* why, size_t why_size, int err, const char* text) {
  snprintf(why, why_size, "%s", text);
  return err;
}

/* Whether perfmon counts `event` without a PMU: a software event or a tracepoint. */
static int is_software(const char* event) {
  static const char* const software[] = {
      "cpu-clock",  "task-clock",   "page-faults",  "faults",           "context-switches", "cs",    "cpu-migrations",
      "migrations", "minor-faults", "major-faults", "alignment-faults", "emulation-faults", "dummy", "bpf-output"};
  if (strchr(event, ':') != NULL && strchr(event, '/') == NULL) return 1; /* subsystem:tracepoint */
  for (size_t i = 0; i < sizeof software / sizeof *software; ++i)
    if (strcmp(event, software[i]) == 0) return 1;
  return 0;
}

int pmc_translate(const perfmon_catalog* catalog, const perfmon_cpu_info* cpu, const char* spec, enum pmc_mode mode,
                  pmc_recipe* recipe, char* why, size_t why_size) {
  memset(recipe, 0, sizeof *recipe);
  for (size_t i = 0; i < sizeof soft_events / sizeof *soft_events; ++i) {
    const soft_event* soft = &soft_events[i];
    if (strcasecmp(spec, soft->name) != 0) continue;
    if (soft->missing != NULL) {
      snprintf(why, why_size, "%s: %s.", soft->name, soft->missing);
      return EOPNOTSUPP;
    }
    snprintf(recipe->events, sizeof recipe->events, "%s", soft->events);
    recipe->parts = strchr(soft->events, ',') != NULL ? 2 : 1;
    for (int k = 0; k < recipe->parts; ++k) recipe->filters[k] = soft->filter;
    recipe->class_ = PMC_CLASS_SOFT;
    recipe->caps = software_caps;
    if (perfmon_catalog_check(catalog, recipe->events) != 0) {
      snprintf(why, why_size, "%s cannot be counted on this machine: %s", soft->name, perfmon_last_error());
      return EOPNOTSUPP;
    }
    return 0;
  }
  if (strcasecmp(spec, "TSC") == 0) {
    if (!PMC_IS_SYSTEM_MODE(mode))
      return fail(why, why_size, EINVAL, "the TSC counts in the system modes only (PMC_MODE_SC), as in hwpmc.");
    snprintf(recipe->events, sizeof recipe->events, "msr/tsc/");
    recipe->parts = 1;
    recipe->class_ = PMC_CLASS_TSC;
    recipe->caps = PMC_CAP_READ;
    if (perfmon_catalog_check(catalog, recipe->events) != 0)
      return fail(why, why_size, EOPNOTSUPP, "this kernel has no msr PMU, which counts the TSC (msr/tsc/).");
    return 0;
  }
  /* pmc.core's specifier first, then any name perfmon knows. */
  if (snprintf(recipe->events, sizeof recipe->events, "pmc.core/%s/", spec) >= (int)sizeof recipe->events)
    return fail(why, why_size, EINVAL, "the specifier is too long.");
  recipe->parts = 1;
  recipe->class_ = pmc_cpu_class(cpu);
  recipe->caps = hardware_caps;
  const int core = perfmon_catalog_check(catalog, recipe->events);
  if (core == 0) return 0;
  char core_error[256];
  snprintf(core_error, sizeof core_error, "%s", perfmon_last_error());
  snprintf(recipe->events, sizeof recipe->events, "%s", spec);
  if (strchr(spec, ',') == NULL && perfmon_catalog_check(catalog, spec) == 0) {
    if (is_software(spec)) {
      recipe->class_ = PMC_CLASS_SOFT;
      recipe->caps = software_caps;
    }
    return 0;
  }
  snprintf(why, why_size, "%s", core_error);
  return EINVAL;
}
