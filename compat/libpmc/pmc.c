/* SPDX-License-Identifier: Apache-2.0 */
/* libpmc's calls over perfmon's C ABI: a table of PMCs, each a counting session per attached
 * process (thread-virtual modes) or on its CPU (system modes). */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "events.h"
#include "log.h"

#define PMC_MAX 64
#define PMC_MAX_TARGETS 16

typedef struct pmc_target {
  pid_t pid;
  perfmon_session* session;
  perfmon_sampler* sampler;
} pmc_target;

typedef struct pmc_slot {
  int used;
  pmc_id_t id;
  enum pmc_mode mode;
  uint32_t flags;
  int cpu;
  pmc_recipe recipe;
  pmc_target targets[PMC_MAX_TARGETS];
  int target_count;
  uint64_t offset; /* pmc_write's value less what was counted then, plus what detached targets counted */
  uint64_t reload; /* a sampling PMC's period (pmc_set) */
  int running;
} pmc_slot;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pmc_slot slots[PMC_MAX];
static perfmon_catalog* catalog;
static perfmon_cpu_info cpu;
static struct pmc_cpuinfo cpu_info;

/* Unlocks and sets errno: every call's way out. */
static int leave(int err) {
  pthread_mutex_unlock(&lock);
  if (err == 0) return 0;
  errno = err;
  return -1;
}

static void complain(const char* call, const char* why) {
  if (getenv("PMC_QUIET") == NULL) fprintf(stderr, "libpmc: %s: %s\n", call, why);
}

int pmc_init(void) {
  pthread_mutex_lock(&lock);
  if (catalog != NULL) return leave(0);
  catalog = perfmon_catalog_new();
  if (catalog == NULL) return leave(ENOMEM);
  if (perfmon_cpu_info_get(catalog, &cpu) != 0) {
    complain("pmc_init", perfmon_last_error());
    perfmon_catalog_free(catalog);
    catalog = NULL;
    return leave(ENXIO);
  }
  cpu_info.pm_ncpu = (uint32_t)sysconf(_SC_NPROCESSORS_CONF);
  const enum pmc_class own = pmc_cpu_class(&cpu);
  cpu_info.pm_cputype = !cpu.hardware_pmu      ? PMC_CPU_GENERIC
                        : own == PMC_CLASS_IAP ? PMC_CPU_INTEL_COREI7
                        : own == PMC_CLASS_K8  ? PMC_CPU_AMD_K8
                                               : PMC_CPU_ARMV8;
  struct pmc_classinfo* classes = cpu_info.pm_classes;
  classes[cpu_info.pm_nclass++] = (struct pmc_classinfo){PMC_CLASS_SOFT, PMC_CAP_READ | PMC_CAP_WRITE, 64, 6};
  if (perfmon_catalog_check(catalog, "msr/tsc/") == 0)
    classes[cpu_info.pm_nclass++] = (struct pmc_classinfo){PMC_CLASS_TSC, PMC_CAP_READ, 64, 1};
  if (cpu.hardware_pmu) {
    const uint32_t general = cpu.general_counters > 0 ? (uint32_t)cpu.general_counters : 0;
    classes[cpu_info.pm_nclass++] =
        (struct pmc_classinfo){own, PMC_CAP_READ | PMC_CAP_WRITE | PMC_CAP_INTERRUPT, 64, general};
    if (own == PMC_CLASS_IAP && cpu.fixed_counters > 0)
      classes[cpu_info.pm_nclass++] =
          (struct pmc_classinfo){PMC_CLASS_IAF, PMC_CAP_READ | PMC_CAP_WRITE, 64, (uint32_t)cpu.fixed_counters};
  }
  for (uint32_t c = 0; c < cpu_info.pm_nclass; ++c) cpu_info.pm_npmc += classes[c].pm_num;
  return leave(0);
}

int pmc_cpuinfo(const struct pmc_cpuinfo** info) {
  if (catalog == NULL || info == NULL) {
    errno = ENXIO;
    return -1;
  }
  *info = &cpu_info;
  return 0;
}

int pmc_ncpu(void) {
  if (catalog == NULL) {
    errno = ENXIO;
    return -1;
  }
  return (int)cpu_info.pm_ncpu;
}

int pmc_npmc(int cpu_number) {
  if (catalog == NULL || cpu_number < 0 || (uint32_t)cpu_number >= cpu_info.pm_ncpu) {
    errno = catalog == NULL ? ENXIO : EINVAL;
    return -1;
  }
  return (int)cpu_info.pm_npmc;
}

/* The PMC an id names, or NULL. */
static pmc_slot* slot_of(pmc_id_t id) {
  const unsigned row = id & 0xFF;
  return row < PMC_MAX && slots[row].used && slots[row].id == id ? &slots[row] : NULL;
}

int pmc_allocate(const char* spec, enum pmc_mode mode, uint32_t flags, int cpu_number, pmc_id_t* pmcid) {
  pthread_mutex_lock(&lock);
  if (catalog == NULL) return leave(ENXIO);
  if (spec == NULL || pmcid == NULL || mode < PMC_MODE_SS || mode > PMC_MODE_TC) return leave(EINVAL);
  /* hwpmc refuses a flag it does not define; these are the ones libpmc's header has. */
  if ((flags & ~(uint32_t)(PMC_F_DESCENDANTS | PMC_F_LOG_PROCEXIT | PMC_F_CALLCHAIN)) != 0) {
    complain("pmc_allocate", "undefined flags: give PMC_F_DESCENDANTS, PMC_F_LOG_PROCEXIT, PMC_F_CALLCHAIN or 0.");
    return leave(EINVAL);
  }
  if (PMC_IS_SYSTEM_MODE(mode) && (cpu_number < 0 || (uint32_t)cpu_number >= cpu_info.pm_ncpu)) {
    complain("pmc_allocate", "a system-mode PMC needs a CPU number (0 to pmc_ncpu() - 1).");
    return leave(EINVAL);
  }
  pmc_slot* slot = NULL;
  for (int row = 0; row < PMC_MAX && slot == NULL; ++row)
    if (!slots[row].used) slot = &slots[row];
  if (slot == NULL) return leave(ENOMEM);
  char why[512];
  pmc_recipe recipe;
  const int err = pmc_translate(catalog, &cpu, spec, mode, &recipe, why, sizeof why);
  if (err != 0) {
    complain("pmc_allocate", why);
    return leave(err);
  }
  memset(slot, 0, sizeof *slot);
  slot->used = 1;
  slot->mode = mode;
  slot->flags = flags;
  slot->cpu = PMC_IS_SYSTEM_MODE(mode) ? cpu_number : -1;
  slot->recipe = recipe;
  slot->reload = 65536; /* hwpmc's default sampling count */
  const unsigned cpu_field = PMC_IS_SYSTEM_MODE(mode) ? (unsigned)cpu_number : 0xFF;
  slot->id = (pmc_id_t)((cpu_field & 0xFF) << 24 | ((unsigned)mode & 0xFF) << 16 |
                        ((unsigned)recipe.class_ & 0xFF) << 8 | (unsigned)(slot - slots));
  *pmcid = slot->id;
  return leave(0);
}

/* Opens the PMC's counters (or sampler) on one target, disabled. */
static int open_target(pmc_slot* slot, pid_t pid, pmc_target* target) {
  memset(target, 0, sizeof *target);
  target->pid = pid;
  const int system = PMC_IS_SYSTEM_MODE(slot->mode);
  const perfmon_target where = system ? (perfmon_target){PERFMON_TARGET_CPUS, 0, &slot->cpu, 1}
                                      : (perfmon_target){PERFMON_TARGET_PROCESS, pid, NULL, 0};
  if (PMC_IS_SAMPLING_MODE(slot->mode)) {
    const int err = pmc_log_open_sampler(catalog, slot->recipe.events, &where, slot->reload,
                                         (slot->flags & PMC_F_CALLCHAIN) != 0, &target->sampler);
    if (err != 0) complain("pmc_start", perfmon_last_error());
    return err;
  }
  perfmon_session_options options;
  memset(&options, 0, sizeof options);
  options.fail_unsupported = 1;
  int err = perfmon_session_open(catalog, slot->recipe.events, &where, &options, &target->session);
  for (int k = 0; err == 0 && k < slot->recipe.parts; ++k)
    if (slot->recipe.filters[k] != NULL)
      err = perfmon_session_set_filter(target->session, (size_t)k, slot->recipe.filters[k]);
  if (err != 0) {
    complain("pmc_attach", perfmon_last_error());
    perfmon_session_close(target->session);
    target->session = NULL;
    return err == EPERM || err == EACCES ? EPERM : err == ESRCH ? ESRCH : EINVAL;
  }
  return 0;
}

static void close_target(pmc_target* target) {
  perfmon_session_close(target->session);
  if (target->sampler != NULL) pmc_log_close_sampler(target->sampler);
  target->session = NULL;
  target->sampler = NULL;
}

/* What a target's counters hold now: the sum of the recipe's parts. */
static uint64_t counted(const pmc_slot* slot, const pmc_target* target) {
  if (target->session == NULL || perfmon_session_read(target->session) != 0) return 0;
  uint64_t total = 0;
  for (int k = 0; k < slot->recipe.parts; ++k) {
    perfmon_value value;
    if (perfmon_session_value(target->session, (size_t)k, &value) == 0) total += value.raw;
  }
  return total;
}

static uint64_t value_of(const pmc_slot* slot) {
  uint64_t total = slot->offset;
  for (int t = 0; t < slot->target_count; ++t) total += counted(slot, &slot->targets[t]);
  return total;
}

static int attach(pmc_slot* slot, pid_t pid) {
  if (PMC_IS_SYSTEM_MODE(slot->mode)) return EINVAL;
  if (pid == 0) pid = getpid();
  if (kill(pid, 0) != 0 && errno == ESRCH) return ESRCH;
  for (int t = 0; t < slot->target_count; ++t)
    if (slot->targets[t].pid == pid) return EEXIST;
  if (slot->target_count == PMC_MAX_TARGETS) return ENOMEM;
  pmc_target* target = &slot->targets[slot->target_count];
  const int err = open_target(slot, pid, target);
  if (err != 0) return err;
  ++slot->target_count;
  if (slot->running && target->session != NULL && perfmon_session_start(target->session) != 0) return EINVAL;
  if (slot->running && target->sampler != NULL && perfmon_sampler_start(target->sampler) != 0) return EINVAL;
  return 0;
}

int pmc_attach(pmc_id_t id, pid_t pid) {
  pthread_mutex_lock(&lock);
  pmc_slot* slot = slot_of(id);
  return leave(slot == NULL ? EINVAL : attach(slot, pid));
}

int pmc_detach(pmc_id_t id, pid_t pid) {
  pthread_mutex_lock(&lock);
  pmc_slot* slot = slot_of(id);
  if (slot == NULL || PMC_IS_SYSTEM_MODE(slot->mode)) return leave(EINVAL);
  if (pid == 0) pid = getpid();
  for (int t = 0; t < slot->target_count; ++t) {
    if (slot->targets[t].pid != pid) continue;
    slot->offset += counted(slot, &slot->targets[t]); /* what it counted stays in the PMC */
    if (slot->targets[t].sampler != NULL) pmc_log_drain(slot->targets[t].sampler);
    close_target(&slot->targets[t]);
    slot->targets[t] = slot->targets[--slot->target_count];
    return leave(0);
  }
  return leave(ESRCH);
}

int pmc_start(pmc_id_t id) {
  pthread_mutex_lock(&lock);
  pmc_slot* slot = slot_of(id);
  if (slot == NULL) return leave(EINVAL);
  if (PMC_IS_SAMPLING_MODE(slot->mode) && !pmc_log_configured()) {
    complain("pmc_start", "a sampling PMC writes to the log: call pmc_configure_logfile(fd) first.");
    return leave(EINVAL); /* hwpmc says EDOOFUS, which Linux lacks */
  }
  if (slot->target_count == 0) { /* system modes: the CPU; process modes: the owner, as hwpmc does */
    const int err = PMC_IS_SYSTEM_MODE(slot->mode) ? open_target(slot, 0, &slot->targets[0]) : attach(slot, 0);
    if (err != 0) return leave(err);
    if (PMC_IS_SYSTEM_MODE(slot->mode)) slot->target_count = 1;
  }
  for (int t = 0; t < slot->target_count; ++t) {
    const pmc_target* target = &slot->targets[t];
    if (target->sampler != NULL) {
      const int err = pmc_log_begin(target->sampler, &target->pid, PMC_IS_SYSTEM_MODE(slot->mode) ? 0 : 1,
                                    PMC_IS_SYSTEM_MODE(slot->mode));
      if (err != 0) return leave(err);
    }
    const int err =
        target->session != NULL ? perfmon_session_start(target->session) : perfmon_sampler_start(target->sampler);
    if (err != 0) {
      complain("pmc_start", perfmon_last_error());
      return leave(err);
    }
  }
  slot->running = 1;
  return leave(0);
}

int pmc_stop(pmc_id_t id) {
  pthread_mutex_lock(&lock);
  pmc_slot* slot = slot_of(id);
  if (slot == NULL) return leave(EINVAL);
  for (int t = 0; t < slot->target_count; ++t) {
    const pmc_target* target = &slot->targets[t];
    if (target->session != NULL) perfmon_session_stop(target->session);
    if (target->sampler != NULL) {
      perfmon_sampler_stop(target->sampler);
      pmc_log_drain(target->sampler);
    }
  }
  slot->running = 0;
  return leave(0);
}

int pmc_read(pmc_id_t id, pmc_value_t* value) {
  pthread_mutex_lock(&lock);
  pmc_slot* slot = slot_of(id);
  if (slot == NULL || value == NULL || PMC_IS_SAMPLING_MODE(slot->mode)) return leave(EINVAL);
  *value = value_of(slot);
  return leave(0);
}

/* hwpmc writes a PMC only while it is stopped. */
static int write_value(pmc_slot* slot, pmc_value_t value) {
  if (slot->running) return EBUSY;
  if (PMC_IS_SAMPLING_MODE(slot->mode)) {
    slot->reload = value;
    return 0;
  }
  slot->offset = value - (value_of(slot) - slot->offset);
  return 0;
}

int pmc_write(pmc_id_t id, pmc_value_t value) {
  pthread_mutex_lock(&lock);
  pmc_slot* slot = slot_of(id);
  return leave(slot == NULL ? EINVAL : write_value(slot, value));
}

int pmc_rw(pmc_id_t id, pmc_value_t newvalue, pmc_value_t* oldvalue) {
  pthread_mutex_lock(&lock);
  pmc_slot* slot = slot_of(id);
  if (slot == NULL || oldvalue == NULL) return leave(EINVAL);
  *oldvalue = value_of(slot);
  return leave(write_value(slot, newvalue));
}

int pmc_set(pmc_id_t id, pmc_value_t value) {
  pthread_mutex_lock(&lock);
  pmc_slot* slot = slot_of(id);
  if (slot == NULL || !PMC_IS_SAMPLING_MODE(slot->mode) || value == 0 || value >> 63) return leave(EINVAL);
  if (slot->running) return leave(EBUSY);
  slot->reload = value;
  return leave(0);
}

int pmc_release(pmc_id_t id) {
  pthread_mutex_lock(&lock);
  pmc_slot* slot = slot_of(id);
  if (slot == NULL) return leave(EINVAL);
  for (int t = 0; t < slot->target_count; ++t) {
    if (slot->targets[t].sampler != NULL) {
      perfmon_sampler_stop(slot->targets[t].sampler);
      pmc_log_drain(slot->targets[t].sampler);
    }
    close_target(&slot->targets[t]);
  }
  memset(slot, 0, sizeof *slot);
  return leave(0);
}

int pmc_width(pmc_id_t id, uint32_t* width) {
  pthread_mutex_lock(&lock);
  if (slot_of(id) == NULL || width == NULL) return leave(EINVAL);
  *width = 64; /* virtualised: perf keeps 64-bit counts whatever the hardware's width */
  return leave(0);
}

int pmc_capabilities(pmc_id_t id, uint32_t* caps) {
  pthread_mutex_lock(&lock);
  pmc_slot* slot = slot_of(id);
  if (slot == NULL || caps == NULL) return leave(EINVAL);
  *caps = slot->recipe.caps;
  return leave(0);
}
