/* SPDX-License-Identifier: Apache-2.0 */
/* Loading a context onto a thread or CPU (its event sets opened through perfmon's C ABI) and
 * unloading it (the counts read back into its PMDs), and watching a loaded thread end. */
#define _GNU_SOURCE
#include "context.h"
#include "context_state.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <linux/futex.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <semaphore.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "../common/signal_handler.h"
#include "machine.h"
#include "registers.h"

#ifndef PIDFD_THREAD
#define PIDFD_THREAD O_EXCL
#endif

/* ---- Loading and unloading -------------------------------------------------------------------------- */

/* The PMDs whose overflows ended a set's last turn: the triggers' bits of the library's info. */
static uint64_t pmds_of_triggers(const event_set* set, uint64_t triggers) {
  uint64_t pmds = 0;
  for (size_t t = 0; t < set->triggers; ++t)
    if (triggers >> t & 1) pmds |= 1ULL << set->trigger_pmd[t];
  return pmds;
}

/* A set's figures while the sets are open (after a read): runs, active time and the PMDs of its
 * last switch, the unloaded figures included. */
void pfm2_loaded_info(const context* c, size_t k, uint64_t* runs, uint64_t* active_ns, uint64_t* switch_pmds) {
  const event_set* set = &c->sets[k];
  perfmon_set_info info;
  *runs = set->runs;
  *active_ns = set->active_ns;
  *switch_pmds = set->switch_pmds;
  if (c->opened == NULL || perfmon_event_sets_info(c->opened, k, &info) != 0) return;
  *runs += info.runs;
  *active_ns += info.active_ns;
  /* Switched away from during this load: its last switch is the library's to tell. */
  if (info.runs > (k == perfmon_event_sets_active(c->opened) ? 1u : 0u))
    *switch_pmds = pmds_of_triggers(set, info.last_switch_triggers);
}

/* Reads the counts back into the PMDs and closes the sets, handling the overflows still waiting
 * first (which the overflow thread may not have seen yet). */
void pfm2_close_event_sets(context* c) {
  if (c->opened == NULL) return;
  perfmon_event_sets_handle_waiting(c->opened);
  perfmon_event_sets_read(c->opened);
  for (size_t k = 0; k < c->set_count; ++k) {
    event_set* set = &c->sets[k];
    for (size_t e = 0; e < set->events; ++e) {
      perfmon_value value;
      if (perfmon_event_sets_value(c->opened, k, e, &value) == 0)
        set->pmd[set->event_pmd[e]].value = set->base[e] + value.raw;
    }
    pfm2_loaded_info(c, k, &set->runs, &set->active_ns, &set->switch_pmds);
    set->events = set->triggers = 0;
  }
  c->active = perfmon_event_sets_active(c->opened);
  perfmon_event_sets_close(c->opened);
  c->opened = NULL;
}

/* The effective timeout of a set: what the kernel's timer takes (10 us at least). */
uint64_t pfm2_timeout_ns(const event_set* set) {
  const uint64_t ns = (uint64_t)set->timeout.tv_sec * 1000000000u + (uint64_t)set->timeout.tv_nsec;
  return ns < 10000 ? 10000 : ns;
}

/* What the library is given of a set: its event list, periods and triggers. */
typedef struct {
  char events[PFM_MAX_PMCS * 48 + 16];
  uint64_t periods[PFM_MAX_PMDS];
  perfmon_set_trigger triggers[PFM_MAX_PMDS];
} set_events;

/* Lays a set's events out: one per PMC in use, in PMC order, each PMD's value its base; "dummy",
 * which counts nothing, for a set without any (the library's sets have events). 1 when one of
 * them overflows. */
static int describe_set(event_set* set, set_events* out, perfmon_set_definition* definition) {
  size_t length = 0;
  int overflows = 0;
  set->events = set->triggers = 0;
  for (unsigned n = 0; n < PFM_MAX_PMCS; ++n) {
    if (!(set->written_pmcs >> n & 1)) continue;
    char text[48];
    if (pfm2_event_of(n, set->pmc[n], text, sizeof text) <= 0) continue;
    length += (size_t)snprintf(out->events + length, sizeof out->events - length, "%s%s", length ? "," : "", text);
    const size_t e = set->events++;
    set->event_pmd[e] = n;
    set->base[e] = set->pmd[n].value;
    out->periods[e] = set->period[e] = pfm2_period_of(set->pmd[n].value);
    set->samples[e] = out->periods[e] != 0;
    overflows |= set->samples[e];
    /* A trigger PMD (§3.7.6): the set gives way after its reg_ovflsw_thres overflows. */
    if ((set->flags & PFM_SETFL_OVFL_SWITCH) && set->pmd[n].ovflsw_thres != 0 && set->samples[e]) {
      const uint64_t threshold = set->pmd[n].ovflsw_thres;
      out->triggers[set->triggers] =
          (perfmon_set_trigger){e, out->periods[e], threshold > UINT32_MAX ? UINT32_MAX : (uint32_t)threshold};
      set->trigger_pmd[set->triggers++] = n;
    }
  }
  if (set->events == 0) snprintf(out->events, sizeof out->events, "dummy");
  memset(definition, 0, sizeof *definition);
  definition->id = set->id;
  definition->events = out->events;
  definition->explicit_next = (set->flags & PFM_SETFL_EXPL_NEXT) != 0;
  definition->next = set->next;
  definition->timeout_ns = (set->flags & PFM_SETFL_TIME_SWITCH) ? pfm2_timeout_ns(set) : 0;
  definition->triggers = out->triggers;
  definition->trigger_count = set->triggers;
  definition->overflow_periods = out->periods;
  definition->overflow_period_count = set->events;
  return overflows;
}

/* Opens the library's event sets on the loaded thread or CPU, disabled, set `first` active.
 * `reopening`: the context was loaded, and the first set's activation is not a new one. */
int pfm2_open_event_sets(context* c, size_t first, int reopening) {
  set_events* described = calloc(c->set_count, sizeof *described);
  perfmon_set_definition* definitions = calloc(c->set_count, sizeof *definitions);
  if (described == NULL || definitions == NULL) {
    free(described);
    free(definitions);
    return pfm2_fail(ENOMEM, "no memory for the event sets");
  }
  int overflows = 0, signals = 0;
  for (size_t k = 0; k < c->set_count; ++k) {
    overflows |= describe_set(&c->sets[k], &described[k], &definitions[k]);
    signals |= definitions[k].timeout_ns != 0;
  }
  signals |= overflows;
  perfmon_event_sets_options options;
  memset(&options, 0, sizeof options);
  options.no_inherit = 1; /* perfmon2 never inherits (§4.2) */
  options.fail_unsupported = 1;
  options.first = c->sets[first].id;
  options.signal = PFM2_OVERFLOW_SIGNAL;
  if (overflows) {
    options.on_overflow = pfm2_overflowed;
    options.hook_context = c;
  }
  int err = 0;
  if (signals && !c->self) {
    pthread_once(&pfm2_overflow_thread_once, pfm2_start_overflow_thread);
    if (pfm2_overflow_thread_tid == 0) err = pfm2_fail(EAGAIN, "cannot start the thread that handles overflows");
    options.overflow_thread = pfm2_overflow_thread_tid;
  }
  perfmon_target target = {PERFMON_TARGET_THREAD, c->tid, NULL, 0};
  if (c->self) target.kind = PERFMON_TARGET_SELF;
  if (c->cpu >= 0) {
    target.kind = PERFMON_TARGET_CPUS;
    target.cpus = &c->cpu;
    target.cpu_count = 1;
  }
  if (err == 0) {
    sigset_t overflow, mask;
    sigemptyset(&overflow);
    sigaddset(&overflow, PFM2_OVERFLOW_SIGNAL);
    pthread_sigmask(SIG_BLOCK, NULL, &mask);
    if (reopening) --c->sets[first].runs; /* the library counts the first set's activation again */
    err = perfmon_event_sets_open(pfm2_catalog(), definitions, c->set_count, &target, &options, &c->opened);
    /* The calls keep the signal blocked until they return (enter()); the sets unblock it for later. */
    if (sigismember(&mask, PFM2_OVERFLOW_SIGNAL)) pthread_sigmask(SIG_BLOCK, &overflow, NULL);
    if (err != 0) {
      c->opened = NULL;
      for (size_t k = 0; k < c->set_count; ++k) c->sets[k].events = c->sets[k].triggers = 0;
      if (reopening) ++c->sets[first].runs;
      /* The kernel's permission rules (perf_event_paranoid, ptrace access) are perfmon2's (§4.2). */
      err = pfm2_fail(err == EACCES                        ? EPERM
                      : err == ENOENT || err == EOPNOTSUPP ? EINVAL
                                                           : err,
                      "%s", perfmon_last_error());
    }
  }
  free(described);
  free(definitions);
  return err;
}

/* PFM_MSG_END (§3.3.6): a thread of another's exits; the context is detached first. The thread's
 * pidfd becomes readable then (Linux 6.9 and later: PIDFD_THREAD); on older kernels the watcher
 * asks every 20 ms whether the thread is still there (tgkill without a signal). */
static void* watch(void* argument) {
  context* c = argument;
  struct pollfd fds[2] = {{c->watcher_stop[0], POLLIN, 0}, {c->watched, POLLIN, 0}};
  const int with_pidfd = c->watched >= 0;
  const pid_t group = with_pidfd ? -1 : pfm2_thread_group_of(c->tid);
  for (;;) {
    const int ready = poll(fds, with_pidfd ? 2 : 1, with_pidfd ? -1 : 20);
    if (fds[0].revents) return NULL;
    if (ready < 0 && errno == EINTR) continue;
    if (with_pidfd || syscall(SYS_tgkill, group, c->tid, 0) != 0) break;
  }
  pthread_mutex_lock(&pfm2_lock);
  if (c->loaded) {
    pfm2_close_event_sets(c);
    pfm2_release_monitored_thread(c, 1);
    c->loaded = c->started = 0;
    pfm2_send_message(c, PFM_MSG_END, 0, 0);
  }
  pthread_mutex_unlock(&pfm2_lock);
  return NULL;
}

/* Watches a loaded thread of another, from now: it may exit before the watcher runs. */
void pfm2_start_watcher(context* c) {
  if (c->cpu >= 0 || c->self) return;
  c->watched = (int)syscall(SYS_pidfd_open, c->tid, PIDFD_THREAD);
  if (pipe2(c->watcher_stop, O_CLOEXEC) == 0) {
    if (pthread_create(&c->watcher, NULL, watch, c) == 0) {
      c->watcher_running = 1;
      return;
    }
    close(c->watcher_stop[0]);
    close(c->watcher_stop[1]);
  }
  if (c->watched >= 0) close(c->watched);
}

void pfm2_stop_watcher(context* c) {
  if (!c->watcher_running) return;
  if (write(c->watcher_stop[1], "x", 1) < 0) {
  }
  pthread_mutex_unlock(&pfm2_lock); /* it may be waiting for the lock */
  pthread_join(c->watcher, NULL);
  pthread_mutex_lock(&pfm2_lock);
  close(c->watcher_stop[0]);
  close(c->watcher_stop[1]);
  if (c->watched >= 0) close(c->watched);
  c->watcher_running = 0;
}

void pfm2_unload(context* c) {
  pfm2_stop_watcher(c);
  if (!c->loaded) return;
  pfm2_close_event_sets(c);
  pfm2_release_monitored_thread(c, 1);
  c->loaded = c->started = 0;
  c->masked = 0;
}
