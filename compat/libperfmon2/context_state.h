/* SPDX-License-Identifier: Apache-2.0 */
/* What the parts of a perfmon2 context share (context.c: the contexts and their calls;
 * overflows.c: resets, messages, blocking and overflows; loading.c: loading and unloading). Not
 * installed: the library's own. */
#ifndef PERFMON2_CONTEXT_STATE_H
#define PERFMON2_CONTEXT_STATE_H

#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "machine.h"
#include "perfmon/compat/perfmon2.h"

typedef struct {
  uint64_t value, long_reset, short_reset, last_reset, ovflsw_thres, random_mask;
  uint32_t random_state;
} pmd_state;

typedef struct {
  uint16_t id, next;
  uint32_t flags;
  struct timespec timeout;
  uint64_t pmc[PFM_MAX_PMCS];
  uint32_t pmc_flags[PFM_MAX_PMCS];
  uint64_t reset_pmds[PFM_MAX_PMCS]; /* one word: PFM_MAX_PMD_BITVECTOR is 1 */
  uint64_t smpl_pmds[PFM_MAX_PMCS];
  uint64_t written_pmcs;
  pmd_state pmd[PFM_MAX_PMDS];
  uint64_t runs, active_ns, switch_pmds; /* as of the last unload (and the runs before this load) */
  /* While the context is loaded: the set's events (the PMDs in use), each event's PMD, base and
   * whether it has an overflow period; the trigger PMDs. */
  size_t events;
  unsigned event_pmd[PFM_MAX_PMDS];
  uint64_t base[PFM_MAX_PMDS];
  int samples[PFM_MAX_PMDS];
  uint64_t period[PFM_MAX_PMDS]; /* the kernel's sampling period, restarted at each overflow */
  unsigned trigger_pmd[PFM_MAX_PMDS];
  size_t triggers;
} event_set;

typedef struct context {
  int fd;    /* the program's end */
  int queue; /* the library's end */
  uint32_t flags;
  /* The default format's buffer (§3.6): a memory file the library writes through its own mapping
   * and the program maps read-only through the context's descriptor. */
  perfmon_default_buffer* buffer;
  int buffer_file;
  void* buffer_memory;
  size_t buffer_size;
  void* program_mapping;
  event_set* sets; /* ordered by id; sets[0] is set 0 */
  size_t set_count;
  /* While loaded: */
  perfmon_event_sets* opened;
  int loaded, started, self;
  pid_t tid;
  int cpu;
  size_t active; /* the active set while the sets are closed; the library's while open */
  volatile sig_atomic_t masked;
  uint64_t overflowed; /* PMDs that overflowed and notified, until pfm_restart */
  int watcher_running;
  int watched;    /* what says the loaded thread of another has exited (watch()) */
  int block_slot; /* PFM_FL_NOTIFY_BLOCK on a thread of this process: its word (-1: none) */
  pthread_t watcher;
  int watcher_stop[2];
  dev_t fd_dev; /* the socket `fd` is: dup2() or close_range() may put another file at the number */
  ino_t fd_ino;
  struct context* next_context;
} context;

/* The period of a PMD whose value is not within 2^63 of overflowing: as good as never. */
#define NEVER ((uint64_t)1 << 62)

/* Every call on a context runs with the overflow signal blocked in the calling thread: the handler
 * never sees a context in the middle of a call (§3.7: no switch inside perfmon code). */
typedef struct {
  sigset_t saved;
} call_guard;

/* The library's overflow thread, for contexts on another thread or a CPU: started once. */
extern pthread_once_t pfm2_overflow_thread_once;
extern pid_t pfm2_overflow_thread_tid; /* 0 when it could not start */

/* The sampling period of a PMD at `value`: the events left until it passes 2^64; 0 when that is
 * 2^63 or more (the kernel takes no such period). */
uint64_t pfm2_period_of(uint64_t value);
size_t pfm2_index_of(const context* c, const event_set* set);
long pfm2_event_of_pmd(const event_set* set, unsigned pmd);
/* Gives PMD `pmd` a new value now. Async-signal-safe: event controls only. The event is disabled around
 * its new period, so that the kernel counts the period from the reset; the sets enable it again
 * with its set. */
void pfm2_reset_pmd(context* c, event_set* set, unsigned pmd, int long_reset);
void pfm2_send_message(context* c, uint32_t type, uint16_t active_set, uint64_t pmds);
/* At load: a word for a context that blocks a thread of this process. */
int pfm2_take_block_slot(context* c);
/* pfm_restart, or the unload (`last`: the slot goes back too), lets a blocked thread go on. */
void pfm2_release_monitored_thread(context* c, int last);
/* The sets' overflow hook: one overflow of a PMD of the active set, as the kernel recorded it. With
 * the default format, the sample is recorded and monitoring goes on until the buffer is full
 * (§3.6.5); without it, a notifying PMD masks at every overflow (§3.4.3): the set is held until
 * pfm_restart, and a switch its trigger asks for waits for it too. */
perfmon_overflow_action pfm2_overflowed(void* argument, size_t index, const perfmon_sample* overflow);
void pfm2_start_overflow_thread(void);
void pfm2_enter(call_guard* guard);
int pfm2_leave(call_guard* guard, int result);
/* A set's figures while the sets are open (after a read): runs, active time and the PMDs of its
 * last switch, the unloaded figures included. */
void pfm2_loaded_info(const context* c, size_t k, uint64_t* runs, uint64_t* active_ns, uint64_t* switch_pmds);
/* Reads the counts back into the PMDs and closes the sets, handling the overflows still waiting
 * first (which the overflow thread may not have seen yet). */
void pfm2_close_event_sets(context* c);
/* The effective timeout of a set: what the kernel's timer takes (10 us at least). */
uint64_t pfm2_timeout_ns(const event_set* set);
/* Opens the library's event sets on the loaded thread or CPU, disabled, set `first` active.
 * `reopening`: the context was loaded, and the first set's activation is not a new one. */
int pfm2_open_event_sets(context* c, size_t first, int reopening);
/* Watches a loaded thread of another, from now: it may exit before the watcher runs. */
void pfm2_start_watcher(context* c);
void pfm2_stop_watcher(context* c);
void pfm2_unload(context* c);

#endif
