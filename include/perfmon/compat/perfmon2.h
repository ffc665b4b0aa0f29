/* SPDX-License-Identifier: Apache-2.0 */
/* The perfmon2 interface on Linux, over perfmon's C ABI (docs/compat.md): the spec's calls
 * (perfmon2-interface-spec §3.1 and §6.1), its structures as it defines them, and its semantics
 * where Linux lets a library keep them.
 *
 * Registers. Logical PMC n and PMD n form a pair: PMC n selects what PMD n counts, and PMD n is a
 * 64-bit virtual counter (the value written plus what was counted since).
 *   - Hardware pairs, numbered from 0, as many as the PMU has general-purpose counters:
 *     on x86 PMC n holds an IA32_PERFEVTSELn word (event, umask, USR, OS, edge, inv, cmask; the EN
 *     bit must be set); on arm64 a PMEVTYPERn_EL0 word (event number, P and U to exclude EL1 and
 *     EL0), and PMC 31 / PMD 31 are PMCCFILTR_EL0 / PMCCNTR_EL0, the cycle counter.
 *   - Virtual pairs (§3.2.2), from PFM_FIRST_VIRTUAL_PMC: Linux's software events and tracepoints,
 *     so that programs run and are tested on machines without a PMU. Their PMC value is
 *     PFM_VIRTUAL_EVENT(type, config) (perf's type and config); pfm_virtual_pmc_value() builds it
 *     from a name ("page-faults", "syscalls:sys_enter_getppid").
 *   pfm_getinfo_pmcs / pfm_getinfo_pmds list them with their actual registers.
 *
 * Contexts are real descriptors: read() takes pfm_msg_t messages (PFM_MSG_OVFL, PFM_MSG_END),
 * poll/select/epoll and O_ASYNC work, and close() destroys the context.
 *
 * Link with -lperfmon2 (pkg-config libperfmon2, whose flags also let a perfmon2 program keep its own
 * #include <perfmon/perfmon.h>: docs/compat.md).
 */
#ifndef PERFMON_COMPAT_PERFMON2_H
#define PERFMON_COMPAT_PERFMON2_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#ifdef __cplusplus
extern "C" {
#endif

#define PFM_VERSION_MAJOR(v) ((uint32_t)(v) >> 16)
#define PFM_VERSION_MINOR(v) ((uint32_t)(v)&0xffff)
#define PFM_VERSION ((2u << 16) | 0u)

/* Register name spaces: 32 hardware pairs at most, then 32 virtual ones. */
#define PFM_MAX_PMCS 64
#define PFM_MAX_PMDS 64
#define PFM_MAX_PMC_BITVECTOR ((PFM_MAX_PMCS + 64 - 1) / 64)
#define PFM_MAX_PMD_BITVECTOR ((PFM_MAX_PMDS + 64 - 1) / 64)
#define PFM_FIRST_VIRTUAL_PMC 32
#define PFM_VIRTUAL_PMCS 32

/* A virtual PMC's value: perf's type (PERF_TYPE_SOFTWARE 1, PERF_TYPE_TRACEPOINT 2) and config,
 * with bits to leave out user or kernel mode. 0 counts nothing. */
#define PFM_VIRTUAL_EVENT(type, config) (((uint64_t)(type) << 32) | (uint32_t)(config))
#define PFM_VIRTUAL_NO_USER (1ULL << 40)
#define PFM_VIRTUAL_NO_KERNEL (1ULL << 41)

/* ---- Contexts (§3.1.1) ----------------------------------------------------------------------- */

typedef unsigned char pfm_uuid_t[16];

typedef struct {
  uint32_t ctx_flags;
  int ctx_fd;
  pfm_uuid_t ctx_smpl_buf_id;
  size_t ctx_smpl_buf_size;
} pfarg_ctx_t;

#define PFM_FL_NOTIFY_BLOCK 0x01 /* block the monitored thread during a notification */
#define PFM_FL_SYSTEM_WIDE 0x02  /* one CPU, every thread on it */
#define PFM_FL_OVFL_NO_MSG 0x80  /* no overflow messages (signals with O_ASYNC only) */

/* ---- Registers (§3.1.2 - 3.1.4, 3.1.13, 3.1.14) ---------------------------------------------- */

typedef struct {
  uint16_t reg_num;
  uint16_t reg_set;
  uint32_t reg_flags;
  uint64_t reg_value;
  uint64_t reg_reset_pmds[PFM_MAX_PMD_BITVECTOR];
  uint64_t reg_smpl_pmds[PFM_MAX_PMD_BITVECTOR];
  uint64_t reg_smpl_eventid;
} pfarg_pmc_t;

typedef struct {
  uint16_t reg_num;
  uint16_t reg_set;
  uint32_t reg_flags;
  uint64_t reg_value;
  uint64_t reg_long_reset;
  uint64_t reg_short_reset;
  uint64_t reg_last_reset_val;
  uint64_t reg_ovflsw_thres;
  uint64_t reg_random_mask;
  uint32_t reg_random_seed;
} pfarg_pmd_t;

#define PFM_REGFL_OVFL_NOTIFY 0x1 /* PMC: a message when its PMD overflows */
#define PFM_REGFL_RANDOM 0x2      /* PMC: its PMD's reset values are randomized */

#define PFM_REG_RETFL_NOTAVAIL (1U << 31) /* no such register */
#define PFM_REG_RETFL_EINVAL (1U << 30)   /* the value is invalid */
#define PFM_REG_RETFL_NOSET (1U << 29)    /* no such event set */
#define PFM_REG_RETFL_MASK (PFM_REG_RETFL_NOTAVAIL | PFM_REG_RETFL_EINVAL | PFM_REG_RETFL_NOSET)
#define PFM_REG_HAS_ERROR(flags) (((flags)&PFM_REG_RETFL_MASK) != 0)

typedef struct {
  uint16_t reg_num;
  uint16_t reg_type;
  uint32_t reg_flags;
  uint64_t reg_def_value;
  uint64_t reg_rsvd_mask;
  size_t reg_index;
} pfarg_pmcinfo_t;

typedef pfarg_pmcinfo_t pfarg_pmdinfo_t;

#define PFM_REG_TYPE_PMC 1
#define PFM_REG_TYPE_MSR 2
#define PFM_REG_TYPE_SPR 3
#define PFM_REG_TYPE_IBR 4
#define PFM_REG_TYPE_DBR 5
#define PFM_REG_TYPE_PMD 6
#define PFM_REG_TYPE_VIRTUAL 7 /* a Linux software event or tracepoint (§3.2.2) */
#define PFM_REG_IDX_NONE ((size_t)-1)

/* ---- Start, load (§3.1.5, 3.1.7) ------------------------------------------------------------- */

typedef struct {
  uint16_t start_set;
} pfarg_start_t;

typedef struct {
  pid_t load_pid;
  uint16_t load_set;
} pfarg_load_t;

/* ---- Event sets (§3.1.10 - 3.1.12, 3.7) ------------------------------------------------------ */

typedef struct {
  uint16_t set_id;
  uint16_t set_id_next;
  uint32_t set_flags;
  struct timespec set_timeout;
} pfarg_setdesc_t;

typedef struct {
  uint16_t set_id;
  uint16_t set_id_next;
  uint32_t set_flags;
  uint64_t set_switch_pmds[PFM_MAX_PMD_BITVECTOR];
  uint64_t set_runs;
  struct timespec set_timeout;
  struct timespec set_act_duration;
} pfarg_setinfo_t;

#define PFM_SETFL_OVFL_SWITCH 0x01 /* switch after overflows of its PMDs with reg_ovflsw_thres */
#define PFM_SETFL_TIME_SWITCH 0x02 /* switch after set_timeout on the PMU */
#define PFM_SETFL_EXPL_NEXT 0x04   /* the next set is set_id_next */
#define PFM_SETFL_EXCL_IDLE 0x08   /* system-wide: not while the CPU idles */

#define PFM_SET_RETFL_EINVAL (1U << 30)
#define PFM_SET_RETFL_NOSET (1U << 29)
#define PFM_SET_HAS_ERROR(flags) (((flags) & (PFM_SET_RETFL_EINVAL | PFM_SET_RETFL_NOSET)) != 0)

/* ---- Configuration (§3.1.16, 3.1.17) --------------------------------------------------------- */

typedef struct {
  uint32_t cf_version;
  uint32_t cf_flags;
  uint64_t cf_impl_pmcs[PFM_MAX_PMC_BITVECTOR];
  uint64_t cf_impl_pmds[PFM_MAX_PMD_BITVECTOR];
  gid_t cf_sys_gid;
  gid_t cf_thread_gid;
  size_t cf_arg_size_max;
  size_t cf_smpl_buf_size_max;
  uint16_t cf_counter_width;
} pfarg_config_t;

#define PFM_GROUP_ANY ((gid_t)-1)

/* ---- Messages (§3.3) ------------------------------------------------------------------------- */

#define PFM_MSG_OVFL 1
#define PFM_MSG_END 2

typedef struct {
  uint32_t msg_type;
  uint16_t msg_active_set;
  uint64_t msg_ovfl_pmds[PFM_MAX_PMD_BITVECTOR];
} pfm_ovfl_msg_t;

typedef union {
  uint32_t msg_type;
  pfm_ovfl_msg_t pfm_ovfl_msg;
} pfm_msg_t;

/* ---- The default sampling format (§3.6) ------------------------------------------------------ */

/* Its UUID goes in ctx_smpl_buf_id, and its arguments right after the pfarg_ctx_t given to
 * pfm_create_context: struct { pfarg_ctx_t ctx; pfm_default_smpl_arg_t arg; }. The buffer is
 * mapped with mmap(NULL, ctx_smpl_buf_size, PROT_READ, MAP_SHARED, ctx_fd, 0). */
#define PFM_DEFAULT_SMPL_UUID \
  { 0x4d, 0x72, 0xbe, 0xc0, 0x06, 0x64, 0x41, 0x43, 0x82, 0xb4, 0xd3, 0xfd, 0x27, 0x24, 0x3c, 0x97 }

typedef struct {
  size_t buf_size;
  uint32_t buf_flags;
} pfm_default_smpl_arg_t;

#define PFM_DFL_SMPL_NO_HDR 0x1  /* samples are their body only */
#define PFM_DFL_SMPL_IIP_HDR 0x2 /* a sample's header is its instruction pointer only */

typedef struct {
  size_t hdr_count;
  size_t hdr_cur_offs;
  uint64_t hdr_overflows;
  size_t hdr_buf_size;
  uint32_t hdr_version;
  uint32_t hdr_flags;
} pfm_default_smpl_hdr_t;

#define PFM_DEFAULT_SMPL_VERSION 1

typedef struct {
  pid_t pid;
  pid_t tid;
  uint16_t ovfl_pmd;
  uint16_t set;
  uint16_t cpu;
  /* (padding: this implementation keeps the body's size here, in 64-bit words) */
  uint64_t last_reset_val;
  uint64_t tstamp; /* CLOCK_MONOTONIC, in nanoseconds */
  uintptr_t ip;
} pfm_default_smpl_entry_t;

/* ---- The calls (§6.1; errors in errno, -1 returned) ------------------------------------------ */

int pfm_create_context(pfarg_ctx_t* ctx, int n);
int pfm_write_pmcs(int fd, pfarg_pmc_t* pmcs, int n);
int pfm_write_pmds(int fd, pfarg_pmd_t* pmds, int n);
int pfm_read_pmds(int fd, pfarg_pmd_t* pmds, int n);
int pfm_load_context(int fd, pfarg_load_t* load);
int pfm_unload_context(int fd);
int pfm_start(int fd, pfarg_start_t* start);
int pfm_stop(int fd);
int pfm_restart(int fd);
int pfm_create_evtsets(int fd, pfarg_setdesc_t* sets, int n);
int pfm_delete_evtsets(int fd, pfarg_setdesc_t* sets, int n);
int pfm_getinfo_evtsets(int fd, pfarg_setinfo_t* sets, int n);
int pfm_getinfo_pmcs(pfarg_pmcinfo_t* pmcs, int n);
int pfm_getinfo_pmds(pfarg_pmdinfo_t* pmds, int n);
int pfm_get_config(pfarg_config_t* config);
int pfm_set_config(pfarg_config_t* config);

/* The multiplexed entry point of §3.1, for code written against it. */
enum {
  PFM_CREATE_CONTEXT = 1,
  PFM_WRITE_PMCS,
  PFM_WRITE_PMDS,
  PFM_READ_PMDS,
  PFM_START,
  PFM_STOP,
  PFM_LOAD_CONTEXT,
  PFM_UNLOAD_CONTEXT,
  PFM_RESTART,
  PFM_CREATE_EVTSETS,
  PFM_DELETE_EVTSETS,
  PFM_GETINFO_EVTSETS,
  PFM_GETINFO_PMCS,
  PFM_GETINFO_PMDS,
  PFM_SET_CONFIG,
  PFM_GET_CONFIG
};
int perfmonctl(int fd, int cmd, void* arg, int narg);

/* Linux additions. The virtual PMC value of a software event ("page-faults", "task-clock", ...)
 * or a tracepoint ("syscalls:sys_enter_getppid"): 0, or -1 with errno ENOENT. */
int pfm_virtual_pmc_value(const char* event, uint64_t* value);
/* What the last failing call of this thread found, in one sentence ("" when none failed). */
const char* pfm_strerror_detail(void);

#ifdef __cplusplus
}
#endif

#endif /* PERFMON_COMPAT_PERFMON2_H */
