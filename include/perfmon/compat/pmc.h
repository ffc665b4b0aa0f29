/* SPDX-License-Identifier: Apache-2.0 */
/* FreeBSD libpmc on Linux, over perfmon's C ABI (docs/compat.md): pmc(3)'s calls with hwpmc's
 * semantics, for programs written against <pmc.h>.
 *
 * A PMC is allocated from an event specifier in one of four modes: thread-virtual counting
 * (PMC_MODE_TC) or sampling (TS), attached to processes; system-wide counting (SC) or sampling (SS)
 * on one CPU. Specifiers are:
 *   - pmc.core's (the seed, freebsd-pmc.core.3.txt): "L2_Rqsts,core=all,cachestate=mi,usr", and
 *     its aliases ("instructions", "branches", ...);
 *   - the software class (pmc.soft): "PAGE_FAULT.ALL", "PAGE_FAULT.READ", "PAGE_FAULT.WRITE",
 *     "CLOCK.HARD" (Linux's software events and tracepoints; counted on machines without a PMU);
 *   - "TSC" (system modes);
 *   - any event name perfmon knows ("syscalls:sys_enter_read", "cycles:u"), as a Linux extension.
 * Sampling PMCs write their samples to the log file (pmc_configure_logfile) as a perf.data file,
 * which `perfmon report -i FILE` and `perf report -i FILE` read.
 *
 * Link with -lpmc (pkg-config libpmc, whose flags also let a FreeBSD program keep its own
 * #include <pmc.h>: docs/compat.md).
 */
#ifndef PERFMON_COMPAT_PMC_H
#define PERFMON_COMPAT_PMC_H

#include <stdint.h>
#include <sys/types.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef uint32_t pmc_id_t;
typedef uint64_t pmc_value_t;
#define PMC_ID_INVALID (~(pmc_id_t)0)
#define PMC_CPU_ANY (~0)
#define PMC_CLASS_MAX 8

enum pmc_cputype {
  PMC_CPU_AMD_K8 = 0x01,       /* any AMD CPU with a PMU */
  PMC_CPU_INTEL_CORE = 0x87,   /* the seed's pmc.core CPUs */
  PMC_CPU_INTEL_COREI7 = 0x8B, /* any later Intel CPU with a PMU */
  PMC_CPU_ARMV8 = 0x500,       /* arm64 (a Linux addition) */
  PMC_CPU_GENERIC = 0x400      /* no PMU: software events only */
};

/* The classes, numbered as hwpmc numbers them. */
enum pmc_class {
  PMC_CLASS_TSC = 0,
  PMC_CLASS_K7,
  PMC_CLASS_K8,
  PMC_CLASS_P5,
  PMC_CLASS_P6,
  PMC_CLASS_P4,
  PMC_CLASS_IAF, /* Intel fixed-function counters */
  PMC_CLASS_IAP, /* Intel programmable counters (pmc.core's events) */
  PMC_CLASS_UCF,
  PMC_CLASS_UCP,
  PMC_CLASS_XSCALE,
  PMC_CLASS_MIPS24K,
  PMC_CLASS_OCTEON,
  PMC_CLASS_PPC7450,
  PMC_CLASS_SOFT, /* software events (pmc.soft) */
  PMC_CLASS_ARMV8 /* arm64's counters (a Linux addition) */
};

enum pmc_mode { PMC_MODE_SS = 0, PMC_MODE_SC = 1, PMC_MODE_TS = 2, PMC_MODE_TC = 3 };
#define PMC_IS_COUNTING_MODE(mode) ((mode) == PMC_MODE_SC || (mode) == PMC_MODE_TC)
#define PMC_IS_SYSTEM_MODE(mode) ((mode) == PMC_MODE_SS || (mode) == PMC_MODE_SC)
#define PMC_IS_SAMPLING_MODE(mode) ((mode) == PMC_MODE_SS || (mode) == PMC_MODE_TS)
#define PMC_IS_VIRTUAL_MODE(mode) ((mode) == PMC_MODE_TS || (mode) == PMC_MODE_TC)

/* pmc_allocate's flags. */
#define PMC_F_DESCENDANTS 0x00000002  /* count (sample) the attached processes' children too */
#define PMC_F_LOG_PROCEXIT 0x00000008 /* accepted; exits are always in the log */
#define PMC_F_CALLCHAIN 0x00000080    /* samples carry the call chain */

enum pmc_caps {
  PMC_CAP_INTERRUPT = 1 << 0,
  PMC_CAP_USER = 1 << 1,
  PMC_CAP_SYSTEM = 1 << 2,
  PMC_CAP_EDGE = 1 << 3,
  PMC_CAP_THRESHOLD = 1 << 4,
  PMC_CAP_READ = 1 << 5,
  PMC_CAP_WRITE = 1 << 6,
  PMC_CAP_INVERT = 1 << 7,
  PMC_CAP_QUALIFIER = 1 << 8,
  PMC_CAP_PRECISE = 1 << 9,
  PMC_CAP_TAGGING = 1 << 10,
  PMC_CAP_CASCADE = 1 << 11
};

/* Events that have a number: the software class and the TSC. Other classes' events are named by
 * their specifiers (pmc_event_names_of_class lists them). */
enum pmc_event {
  PMC_EV_TSC_TSC = 0x2000,
  PMC_EV_SOFT_CLOCK_HARD = 0x20000,
  PMC_EV_SOFT_CLOCK_STAT,
  PMC_EV_SOFT_CLOCK_PROF,
  PMC_EV_SOFT_PAGE_FAULT_ALL,
  PMC_EV_SOFT_PAGE_FAULT_READ,
  PMC_EV_SOFT_PAGE_FAULT_WRITE
};

struct pmc_classinfo {
  enum pmc_class pm_class;
  uint32_t pm_caps;  /* PMC_CAP_* */
  uint32_t pm_width; /* bits of a counter as a program sees it (64: virtualised) */
  uint32_t pm_num;   /* counters of this class on a CPU */
};

struct pmc_cpuinfo {
  enum pmc_cputype pm_cputype;
  uint32_t pm_ncpu;
  uint32_t pm_npmc; /* counters per CPU, all classes */
  uint32_t pm_nclass;
  struct pmc_classinfo pm_classes[PMC_CLASS_MAX];
};

int pmc_init(void);
int pmc_cpuinfo(const struct pmc_cpuinfo** cpu_info);
int pmc_ncpu(void);
int pmc_npmc(int cpu);

/* Every call below returns 0, or -1 with errno set, as libpmc does. */
int pmc_allocate(const char* ctrspec, enum pmc_mode mode, uint32_t flags, int cpu, pmc_id_t* pmcid);
int pmc_attach(pmc_id_t pmcid, pid_t pid); /* pid 0: the calling process */
int pmc_detach(pmc_id_t pmcid, pid_t pid);
int pmc_start(pmc_id_t pmc);
int pmc_stop(pmc_id_t pmc);
int pmc_read(pmc_id_t pmc, pmc_value_t* value);
int pmc_write(pmc_id_t pmc, pmc_value_t value);
int pmc_rw(pmc_id_t pmc, pmc_value_t newvalue, pmc_value_t* oldvalue);
int pmc_release(pmc_id_t pmc);
int pmc_set(pmc_id_t pmc, pmc_value_t value); /* a sampling PMC's reload count */
int pmc_width(pmc_id_t pmc, uint32_t* width);
int pmc_capabilities(pmc_id_t pmc, uint32_t* caps);

/* The sampling modes' log: a perf.data file written to `fd` (-1 closes it). */
int pmc_configure_logfile(int fd);
int pmc_flush_logfile(void);
int pmc_close_logfile(void);

const char* pmc_name_of_event(enum pmc_event pe);
const char* pmc_name_of_class(enum pmc_class pc);
const char* pmc_name_of_mode(enum pmc_mode pm);
const char* pmc_name_of_cputype(enum pmc_cputype cp);
const char* pmc_name_of_capability(uint32_t cap);
/* The event names of a class, in an array the caller frees (the names are the library's). */
int pmc_event_names_of_class(enum pmc_class cl, const char*** eventnames, int* nevents);

#ifdef __cplusplus
}
#endif

#endif /* PERFMON_COMPAT_PMC_H */
