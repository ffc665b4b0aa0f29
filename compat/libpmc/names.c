/* SPDX-License-Identifier: Apache-2.0 */
/* libpmc's names: of events, classes, modes, CPU types and capabilities. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "events.h"

const char* pmc_name_of_event(enum pmc_event pe) {
  if (pe == PMC_EV_TSC_TSC) return "TSC";
  if (pe >= PMC_EV_SOFT_CLOCK_HARD && pe <= PMC_EV_SOFT_PAGE_FAULT_WRITE)
    return pmc_soft_names[pe - PMC_EV_SOFT_CLOCK_HARD];
  errno = EINVAL;
  return NULL;
}

const char* pmc_name_of_class(enum pmc_class pc) {
  static const char* const names[] = {"TSC", "K7",  "K8",     "P5",      "P6",     "P4",      "IAF",  "IAP",
                                      "UCF", "UCP", "XSCALE", "MIPS24K", "OCTEON", "PPC7450", "SOFT", "ARMV8"};
  if ((unsigned)pc < sizeof names / sizeof *names) return names[pc];
  errno = EINVAL;
  return NULL;
}

const char* pmc_name_of_mode(enum pmc_mode pm) {
  static const char* const names[] = {"system-sampling", "system-counting", "process-sampling", "process-counting"};
  if ((unsigned)pm < sizeof names / sizeof *names) return names[pm];
  errno = EINVAL;
  return NULL;
}

const char* pmc_name_of_cputype(enum pmc_cputype cp) {
  switch (cp) {
    case PMC_CPU_AMD_K8:
      return "AMD (any with a PMU)";
    case PMC_CPU_INTEL_CORE:
      return "Intel Core Solo/Duo";
    case PMC_CPU_INTEL_COREI7:
      return "Intel (Core i7 and later)";
    case PMC_CPU_ARMV8:
      return "Arm v8";
    case PMC_CPU_GENERIC:
      return "Generic (software events only)";
  }
  errno = EINVAL;
  return NULL;
}

const char* pmc_name_of_capability(uint32_t cap) {
  static const char* const names[] = {"INTERRUPT", "USER",   "SYSTEM",    "EDGE",    "THRESHOLD", "READ",
                                      "WRITE",     "INVERT", "QUALIFIER", "PRECISE", "TAGGING",   "CASCADE"};
  for (unsigned bit = 0; bit < sizeof names / sizeof *names; ++bit)
    if (cap == 1u << bit) return names[bit];
  errno = EINVAL;
  return NULL;
}

/* A class's names, gathered once from the catalogue and kept for the life of the process. */
typedef struct name_list {
  const char** names;
  int count, capacity;
} name_list;

static void keep_name(void* context, const char* name, const char* description) {
  (void)description;
  name_list* list = context;
  if (list->count == list->capacity) {
    const int capacity = list->capacity ? 2 * list->capacity : 64;
    const char** grown = realloc(list->names, sizeof *grown * (size_t)capacity);
    if (grown == NULL) return;
    list->names = grown;
    list->capacity = capacity;
  }
  /* pmc.core's rows are written "pmc.core/NAME/": libpmc names them NAME. */
  const size_t prefix = strncmp(name, "pmc.core/", 9) == 0 ? 9 : 0;
  char* copy = strdup(name + prefix);
  if (copy == NULL) return;
  if (prefix && copy[0] != '\0' && copy[strlen(copy) - 1] == '/') copy[strlen(copy) - 1] = '\0';
  list->names[list->count++] = copy;
}

static pthread_mutex_t names_lock = PTHREAD_MUTEX_INITIALIZER;
static name_list core_names, hardware_names;

int pmc_event_names_of_class(enum pmc_class cl, const char*** eventnames, int* nevents) {
  if (eventnames == NULL || nevents == NULL) {
    errno = EINVAL;
    return -1;
  }
  static const char* const tsc[] = {"TSC"};
  const char* const* names = NULL;
  int count = 0;
  pthread_mutex_lock(&names_lock);
  if (cl == PMC_CLASS_SOFT) {
    names = pmc_soft_names;
    count = 6;
  } else if (cl == PMC_CLASS_TSC) {
    names = tsc;
    count = 1;
  } else if (cl == PMC_CLASS_IAP || cl == PMC_CLASS_K8 || cl == PMC_CLASS_ARMV8) {
    name_list* list = cl == PMC_CLASS_IAP ? &core_names : &hardware_names;
    perfmon_catalog* catalog = list->count == 0 ? perfmon_catalog_new() : NULL;
    if (catalog != NULL) {
      perfmon_catalog_list(catalog, cl == PMC_CLASS_IAP ? "pmc.core" : "hardware", keep_name, list);
      perfmon_catalog_free(catalog);
    }
    names = list->names;
    count = list->count;
  }
  pthread_mutex_unlock(&names_lock);
  if (names == NULL) {
    errno = EINVAL;
    return -1;
  }
  const char** copy = malloc(sizeof *copy * (size_t)count);
  if (copy == NULL) {
    errno = ENOMEM;
    return -1;
  }
  memcpy(copy, names, sizeof *copy * (size_t)count);
  *eventnames = copy;
  *nevents = count;
  return 0;
}
