/* SPDX-License-Identifier: Apache-2.0 */
/* A context's overflows (context_state.h): resets and randomization (§3.4.2), messages (§3.3),
 * blocking the monitored thread (PFM_FL_NOTIFY_BLOCK, §3.4.3), and the sets' overflow hook. */
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

/* ---- Resets and randomization (§3.4.2) ------------------------------------------------------------ */

/* Park and Miller's minimal standard generator, as perfmon2's kernel had it (Carta's form). */
static uint32_t next_random(uint32_t* state) {
  uint64_t product = (uint64_t)(*state ? *state : 1) * 16807u;
  uint32_t value = (uint32_t)((product & 0x7fffffff) + (product >> 31));
  value = (value & 0x7fffffff) + (value >> 31);
  *state = value;
  return value;
}

static uint64_t reset_value(event_set* set, unsigned pmd, int long_reset) {
  pmd_state* p = &set->pmd[pmd];
  uint64_t value = long_reset ? p->long_reset : p->short_reset;
  if (set->pmc_flags[pmd] & PFM_REGFL_RANDOM) value += next_random(&p->random_state) & p->random_mask;
  p->last_reset = value;
  return value;
}

/* The sampling period of a PMD at `value`: the events left until it passes 2^64; 0 when that is
 * 2^63 or more (the kernel takes no such period). */
uint64_t pfm2_period_of(uint64_t value) {
  const uint64_t left = (uint64_t)0 - value;
  return value == 0 || left >> 63 ? 0 : left;
}

/* The period the kernel is given for a sampling PMD at `value`. */
static uint64_t kernel_period(uint64_t value) {
  const uint64_t period = pfm2_period_of(value);
  return period == 0 ? NEVER : period;
}

size_t pfm2_index_of(const context* c, const event_set* set) {
  return (size_t)(set - c->sets);
}

/* The value of event e of a set now (PMD = base + it). Async-signal-safe. */
static int count_now(context* c, const event_set* set, size_t e, uint64_t* count) {
  perfmon_value value;
  if (perfmon_event_sets_read_set(c->opened, pfm2_index_of(c, set)) != 0 ||
      perfmon_event_sets_value(c->opened, pfm2_index_of(c, set), e, &value) != 0)
    return -1;
  *count = value.raw;
  return 0;
}

static int event_fd(const context* c, const event_set* set, size_t e) {
  return perfmon_event_sets_fd(c->opened, pfm2_index_of(c, set), e, 0);
}

/* One event of a set held, let go or zeroed. Async-signal-safe. */
static void control(context* c, event_set* set, size_t e, perfmon_event_control what) {
  perfmon_event_sets_control_event(c->opened, pfm2_index_of(c, set), e, what);
}

long pfm2_event_of_pmd(const event_set* set, unsigned pmd) {
  for (size_t e = 0; e < set->events; ++e)
    if (set->event_pmd[e] == pmd) return (long)e;
  return -1;
}

/* Gives PMD `pmd` a new value now. Async-signal-safe: event controls only. The event is disabled around
 * its new period, so that the kernel counts the period from the reset; the sets enable it again
 * with its set. */
void pfm2_reset_pmd(context* c, event_set* set, unsigned pmd, int long_reset) {
  const uint64_t value = reset_value(set, pmd, long_reset);
  const long e = c->opened != NULL ? pfm2_event_of_pmd(set, pmd) : -1;
  if (e < 0) {
    set->pmd[pmd].value = value;
    return;
  }
  if (event_fd(c, set, (size_t)e) < 0) return;
  control(c, set, (size_t)e, PERFMON_EVENT_DISABLE);
  control(c, set, (size_t)e, PERFMON_EVENT_ZERO);
  set->base[e] = value;
  if (set->samples[e]) {
    const uint64_t period = kernel_period(value);
    perfmon_event_sets_set_period(c->opened, pfm2_index_of(c, set), (size_t)e, period);
    set->period[e] = period;
  }
}

/* The short reset of PMD `pmd`, event e, after its overflow (§3.4.2). At the overflow base + count
 * passed 0, so adding the reset value to the base makes the PMD count on from it, keeping what the
 * target did since (another thread's overflow is handled later than it happened). The kernel
 * restarted its period at the overflow; where the reset value asks for another, the period becomes
 * what is left from now. Async-signal-safe. */
static void short_reset_overflowed(context* c, event_set* set, unsigned pmd, size_t e) {
  const uint64_t value = reset_value(set, pmd, 0);
  set->base[e] += value;
  uint64_t left = kernel_period(value);
  if (left == set->period[e]) return;
  control(c, set, e, PERFMON_EVENT_DISABLE);
  uint64_t now;
  if (pfm2_period_of(value) != 0 && count_now(c, set, e, &now) == 0) {
    left = pfm2_period_of(set->base[e] + now);
    if (left == 0) left = 1; /* past 0 again already: it overflows at the next event */
  }
  perfmon_event_sets_set_period(c->opened, pfm2_index_of(c, set), e, left);
  set->period[e] = left;
  if (c->started) control(c, set, e, PERFMON_EVENT_ENABLE);
}

/* ---- Messages (§3.3) ----------------------------------------------------------------------------- */

void pfm2_send_message(context* c, uint32_t type, uint16_t active_set, uint64_t pmds) {
  pfm_msg_t message;
  memset(&message, 0, sizeof message);
  message.pfm_ovfl_msg.msg_type = type;
  if (type == PFM_MSG_OVFL) {
    message.pfm_ovfl_msg.msg_active_set = active_set;
    message.pfm_ovfl_msg.msg_ovfl_pmds[0] = pmds;
  }
  send(c->queue, &message, sizeof message, MSG_DONTWAIT | MSG_NOSIGNAL);
}

/* PFM_FL_OVFL_NO_MSG: no message, but the signal the program asked for with O_ASYNC (§3.3.7). */
static void signal_owner(context* c) {
  const int status = fcntl(c->fd, F_GETFL);
  if (status < 0 || !(status & O_ASYNC)) return;
  struct f_owner_ex owner;
  if (fcntl(c->fd, F_GETOWN_EX, &owner) != 0 || owner.pid <= 0) return;
  int signal = fcntl(c->fd, F_GETSIG);
  if (signal <= 0) signal = SIGIO;
  siginfo_t info;
  memset(&info, 0, sizeof info);
  info.si_signo = signal;
  info.si_code = POLL_IN;
  info.si_fd = c->fd;
  if (owner.type == F_OWNER_TID)
    syscall(SYS_rt_tgsigqueueinfo, getpid(), owner.pid, signal, &info);
  else
    syscall(SYS_rt_sigqueueinfo, owner.pid, signal, &info);
}

/* ---- Blocking the monitored thread (PFM_FL_NOTIFY_BLOCK, §3.4.3) ------------------------------ */

/* A thread of this process that a notification blocks is sent PFM2_BLOCK_SIGNAL, whose handler
 * waits on a futex word until pfm_restart (or the unload) changes it. The words are a pool that is
 * never freed, so that a waiter never touches a closed context: slot and value travel in the
 * signal. Another process's thread cannot be stopped short of ptrace: it runs on. */

#define BLOCK_WORDS 256
static _Atomic uint32_t block_words[BLOCK_WORDS];
static int block_slot_taken[BLOCK_WORDS]; /* under the lock */

static void wait_for_restart(int sig, siginfo_t* info, void* ucontext) {
  (void)sig;
  (void)ucontext;
  const int saved_errno = errno;
  const uint64_t code = (uint64_t)(uintptr_t)info->si_value.sival_ptr;
  const unsigned slot = (unsigned)(code >> 32);
  const uint32_t word = (uint32_t)code;
  if (info->si_code == SI_QUEUE && info->si_pid == getpid() && slot < BLOCK_WORDS)
    while (atomic_load(&block_words[slot]) == word)
      syscall(SYS_futex, &block_words[slot], FUTEX_WAIT_PRIVATE, word, NULL, NULL, 0);
  errno = saved_errno;
}

static pthread_once_t block_handler_once = PTHREAD_ONCE_INIT;
static int block_handler_error;
static void install_block_handler(void) {
  block_handler_error = install_siginfo_handler(PFM2_BLOCK_SIGNAL, wait_for_restart, 0);
}

/* At load: a word for a context that blocks a thread of this process. */
int pfm2_take_block_slot(context* c) {
  c->block_slot = -1;
  if (!(c->flags & PFM_FL_NOTIFY_BLOCK) || c->self || c->cpu >= 0 || pfm2_thread_group_of(c->tid) != getpid()) return 0;
  pthread_once(&block_handler_once, install_block_handler);
  if (block_handler_error != 0) return pfm2_fail(block_handler_error, "cannot install the handler that blocks threads");
  for (int slot = 0; slot < BLOCK_WORDS; ++slot)
    if (!block_slot_taken[slot]) {
      block_slot_taken[slot] = 1;
      c->block_slot = slot;
      return 0;
    }
  return pfm2_fail(EBUSY, "more than %d loaded contexts block their threads", BLOCK_WORDS);
}

/* The notification blocks the monitored thread: it waits in the handler as it next returns to user
 * mode. Async-signal-safe. */
static void block_monitored_thread(const context* c) {
  if (c->block_slot < 0) return;
  siginfo_t info;
  memset(&info, 0, sizeof info);
  info.si_signo = PFM2_BLOCK_SIGNAL;
  info.si_code = SI_QUEUE;
  info.si_pid = getpid();
  info.si_uid = getuid();
  const uint32_t word = atomic_load(&block_words[c->block_slot]);
  info.si_value.sival_ptr = (void*)(uintptr_t)((uint64_t)c->block_slot << 32 | word);
  syscall(SYS_rt_tgsigqueueinfo, getpid(), c->tid, PFM2_BLOCK_SIGNAL, &info);
}

/* pfm_restart, or the unload (`last`: the slot goes back too), lets a blocked thread go on. */
void pfm2_release_monitored_thread(context* c, int last) {
  if (c->block_slot < 0) return;
  atomic_fetch_add(&block_words[c->block_slot], 1);
  syscall(SYS_futex, &block_words[c->block_slot], FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
  if (!last) return;
  block_slot_taken[c->block_slot] = 0;
  c->block_slot = -1;
}

/* ---- Overflows -------------------------------------------------------------------------------- */

/* §3.6.4: the default format records the sample of PMD `pmd`, as the kernel's overflow record
 * saw it (IP, pid, tid, CPU, time), with the PMDs its PMC's reg_smpl_pmds names as the body (their
 * values now). 1 when it was written and the buffer is not full. */
static int take_sample(context* c, event_set* set, unsigned pmd, const perfmon_sample* overflow) {
  uint64_t body[PFM_MAX_PMDS];
  size_t words = 0;
  const uint64_t wanted = set->smpl_pmds[pmd];
  const int read = wanted != 0 && perfmon_event_sets_read_set(c->opened, pfm2_index_of(c, set)) == 0;
  for (unsigned other = 0; other < PFM_MAX_PMDS; ++other) {
    if (!(wanted >> other & 1)) continue;
    const long e = pfm2_event_of_pmd(set, other);
    perfmon_value value;
    const int counting =
        read && e >= 0 && perfmon_event_sets_value(c->opened, pfm2_index_of(c, set), (size_t)e, &value) == 0;
    body[words++] = counting ? set->base[e] + value.raw : set->pmd[other].value;
  }
  const perfmon_default_entry entry = {
      (int32_t)overflow->pid,   (int32_t)overflow->tid, (uint16_t)pmd, set->id, (uint16_t)overflow->cpu, 0,
      set->pmd[pmd].last_reset, overflow->time,         overflow->ip};
  return perfmon_default_buffer_append(c->buffer, &entry, body, words) == 0;
}

/* After an overflow that does not mask: the short resets of the PMD and those its PMC names. */
static void short_resets(context* c, event_set* set, unsigned pmd, size_t e) {
  short_reset_overflowed(c, set, pmd, e);
  for (unsigned other = 0; other < PFM_MAX_PMDS; ++other)
    if (other != pmd && (set->reset_pmds[pmd] >> other & 1)) {
      pfm2_reset_pmd(c, set, other, 0);
      const long o = pfm2_event_of_pmd(set, other);
      if (o >= 0 && c->started) control(c, set, (size_t)o, PERFMON_EVENT_ENABLE);
    }
}

/* The sets' overflow hook: one overflow of a PMD of the active set, as the kernel recorded it. With
 * the default format, the sample is recorded and monitoring goes on until the buffer is full
 * (§3.6.5); without it, a notifying PMD masks at every overflow (§3.4.3): the set is held until
 * pfm_restart, and a switch its trigger asks for waits for it too. */
perfmon_overflow_action pfm2_overflowed(void* argument, size_t index, const perfmon_sample* overflow) {
  context* c = argument;
  event_set* set = &c->sets[index];
  if (overflow->event >= set->events) return PERFMON_OVERFLOW_CONTINUE;
  const unsigned pmd = set->event_pmd[overflow->event];
  const int notify = (set->pmc_flags[pmd] & PFM_REGFL_OVFL_NOTIFY) != 0;
  const int masks = c->buffer != NULL ? !take_sample(c, set, pmd, overflow) : notify;
  if (!masks) {
    short_resets(c, set, pmd, overflow->event);
    return PERFMON_OVERFLOW_CONTINUE;
  }
  c->masked = 1;
  c->overflowed |= 1ULL << pmd;
  if (!notify) {
    /* A full buffer without notification saturates: masked, silently (§3.6.5). */
  } else if (c->flags & PFM_FL_OVFL_NO_MSG) {
    signal_owner(c);
  } else {
    pfm2_send_message(c, PFM_MSG_OVFL, set->id, 1ULL << pmd);
  }
  if (notify) block_monitored_thread(c);
  return PERFMON_OVERFLOW_HOLD;
}

/* The overflow thread: the kernel signals it the overflows of contexts loaded on another thread or
 * a CPU. It waits for them with every signal blocked (SIGIO too, which the kernel sends instead
 * when the real-time signal queue is full: then every such context's rings are looked at), and
 * handles them under the lock, so never in the middle of a call. It starts with the first such
 * context and stays. */
pthread_once_t pfm2_overflow_thread_once = PTHREAD_ONCE_INIT;
pid_t pfm2_overflow_thread_tid; /* 0 when it could not start */
static sem_t overflow_thread_started;

static void* serve_overflows(void* unused) {
  (void)unused;
  sigset_t wanted;
  sigemptyset(&wanted);
  sigaddset(&wanted, PFM2_OVERFLOW_SIGNAL);
  sigaddset(&wanted, SIGIO);
  pfm2_overflow_thread_tid = pfm2_gettid();
  sem_post(&overflow_thread_started);
  for (;;) {
    siginfo_t info;
    const int sig = sigwaitinfo(&wanted, &info);
    if (sig < 0) continue;
    pthread_mutex_lock(&pfm2_lock);
    for (context* c = pfm2_contexts; c != NULL; c = c->next_context) {
      if (!c->loaded || c->self || c->opened == NULL) continue;
      if (sig == PFM2_OVERFLOW_SIGNAL)
        perfmon_event_sets_handle_overflow(c->opened, sig, info.si_fd);
      else
        perfmon_event_sets_handle_waiting(c->opened);
    }
    pthread_mutex_unlock(&pfm2_lock);
  }
  return NULL;
}

void pfm2_start_overflow_thread(void) {
  sigset_t all, saved;
  sigfillset(&all);
  pthread_sigmask(SIG_BLOCK, &all, &saved); /* the thread starts with every signal blocked */
  pthread_attr_t attributes;
  pthread_attr_init(&attributes);
  pthread_attr_setdetachstate(&attributes, PTHREAD_CREATE_DETACHED);
  pthread_t thread;
  sem_init(&overflow_thread_started, 0, 0);
  if (pthread_create(&thread, &attributes, serve_overflows, NULL) == 0) {
    while (sem_wait(&overflow_thread_started) != 0) {
    }
    pthread_setname_np(thread, "perfmon2-ovfl");
  }
  pthread_attr_destroy(&attributes);
  pthread_sigmask(SIG_SETMASK, &saved, NULL);
}

void pfm2_enter(call_guard* guard) {
  sigset_t overflow;
  sigemptyset(&overflow);
  sigaddset(&overflow, PFM2_OVERFLOW_SIGNAL);
  pthread_sigmask(SIG_BLOCK, &overflow, &guard->saved);
  pthread_mutex_lock(&pfm2_lock);
}

int pfm2_leave(call_guard* guard, int result) {
  const int saved_errno = errno;
  pthread_mutex_unlock(&pfm2_lock);
  pthread_sigmask(SIG_SETMASK, &guard->saved, NULL);
  errno = saved_errno;
  return result;
}
