/* perfmon2's context calls (§3.1) over perfmon's event sets (perfmon_event_sets_*).
 *
 * A context holds, per event set, the software state of every PMC and PMD. Loading it opens the
 * library's event sets on the thread or CPU: per set, one event per PMC in use (its PMD's value
 * becomes the event's base: PMD = base + what the kernel counted since), its timeout (§3.7.6: a
 * task-clock timer, which runs only while the set is on) and its trigger PMDs, only the active set
 * enabled; unloading reads the counts back into the PMDs and closes the sets. The library switches
 * the sets.
 *
 * A PMD loaded within 2^63 of overflowing samples with that period. Each overflow leaves the
 * kernel's record (IP, pid, tid, CPU, time) in the set's ring and raises PFM2_OVERFLOW_SIGNAL: in
 * the monitored thread for a self-monitoring context, where the library's handler runs right after
 * the overflow; in the library's overflow thread for a context on another thread or a CPU, which
 * hands it to the sets under the lock while the target runs on. Either way the sets call
 * overflowed() with each record of the active set: a PMD takes its short reset or, for a notifying
 * PMC, the set is held (masked) and PFM_MSG_OVFL queued until pfm_restart (long reset), which
 * resumes it, or switches first if a trigger ran out meanwhile. The descriptor is one end of a
 * SOCK_SEQPACKET pair: the library writes each message whole into the other end. */
#define _GNU_SOURCE
#include "context.h"

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

/* ---- What the parts share ---------------------------------------------------------------------- */

static perfmon_catalog* catalog;
static pthread_once_t catalog_once = PTHREAD_ONCE_INIT;
static void make_catalog(void) {
  catalog = perfmon_catalog_new();
}
const perfmon_catalog* pfm2_catalog(void) {
  pthread_once(&catalog_once, make_catalog);
  return catalog;
}

static __thread char detail[512];
int pfm2_fail(int err, const char* format, ...) {
  va_list ap;
  va_start(ap, format);
  vsnprintf(detail, sizeof detail, format, ap);
  va_end(ap);
  errno = err;
  return -1;
}
const char* pfm_strerror_detail(void) {
  return detail;
}

/* ---- State ------------------------------------------------------------------------------------- */

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

static pthread_mutex_t lock = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;
static context* contexts;

/* The period of a PMD whose value is not within 2^63 of overflowing: as good as never. */
#define NEVER ((uint64_t)1 << 62)

/* Whether `fd` is context c's descriptor. A number that now holds another file (the context's was
 * closed by dup2() or close_range(), which libperfmon2 does not see) is not, and the context is
 * detached from it for good: it answers no number again. */
static int is_descriptor_of(context* c, int fd) {
  if (c->fd != fd) return 0;
  struct stat status;
  if (fstat(fd, &status) == 0 && status.st_dev == c->fd_dev && status.st_ino == c->fd_ino) return 1;
  c->fd = -1;
  return 0;
}

int pfm2_is_context(int fd) {
  for (context* c = contexts; c != NULL; c = c->next_context)
    if (is_descriptor_of(c, fd)) return 1;
  return 0;
}

static context* find(int fd) {
  for (context* c = contexts; c != NULL; c = c->next_context)
    if (is_descriptor_of(c, fd)) return c;
  return NULL;
}

static event_set* find_set(context* c, uint16_t id) {
  for (size_t k = 0; k < c->set_count; ++k)
    if (c->sets[k].id == id) return &c->sets[k];
  return NULL;
}

static pid_t gettid_(void) {
  return (pid_t)syscall(SYS_gettid);
}

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
static uint64_t period_of(uint64_t value) {
  const uint64_t left = (uint64_t)0 - value;
  return value == 0 || left >> 63 ? 0 : left;
}

/* The period the kernel is given for a sampling PMD at `value`. */
static uint64_t kernel_period(uint64_t value) {
  const uint64_t period = period_of(value);
  return period == 0 ? NEVER : period;
}

static size_t index_of(const context* c, const event_set* set) {
  return (size_t)(set - c->sets);
}

/* The value of event e of a set now (PMD = base + it). Async-signal-safe. */
static int count_now(context* c, const event_set* set, size_t e, uint64_t* count) {
  perfmon_value value;
  if (perfmon_event_sets_read_set(c->opened, index_of(c, set)) != 0 ||
      perfmon_event_sets_value(c->opened, index_of(c, set), e, &value) != 0)
    return -1;
  *count = value.raw;
  return 0;
}

static int event_fd(const context* c, const event_set* set, size_t e) {
  return perfmon_event_sets_fd(c->opened, index_of(c, set), e, 0);
}

/* One event of a set held, let go or zeroed. Async-signal-safe. */
static void control(context* c, event_set* set, size_t e, perfmon_event_control what) {
  perfmon_event_sets_control_event(c->opened, index_of(c, set), e, what);
}

static long event_of_pmd(const event_set* set, unsigned pmd) {
  for (size_t e = 0; e < set->events; ++e)
    if (set->event_pmd[e] == pmd) return (long)e;
  return -1;
}

/* Gives PMD `pmd` a new value now. Async-signal-safe: event controls only. The event is disabled around
 * its new period, so that the kernel counts the period from the reset; the sets enable it again
 * with its set. */
static void reset_pmd(context* c, event_set* set, unsigned pmd, int long_reset) {
  const uint64_t value = reset_value(set, pmd, long_reset);
  const long e = c->opened != NULL ? event_of_pmd(set, pmd) : -1;
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
    perfmon_event_sets_set_period(c->opened, index_of(c, set), (size_t)e, period);
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
  if (period_of(value) != 0 && count_now(c, set, e, &now) == 0) {
    left = period_of(set->base[e] + now);
    if (left == 0) left = 1; /* past 0 again already: it overflows at the next event */
  }
  perfmon_event_sets_set_period(c->opened, index_of(c, set), e, left);
  set->period[e] = left;
  if (c->started) control(c, set, e, PERFMON_EVENT_ENABLE);
}

/* ---- Messages (§3.3) ----------------------------------------------------------------------------- */

static void send_message(context* c, uint32_t type, uint16_t active_set, uint64_t pmds) {
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
static pid_t thread_group_of(pid_t tid);

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
static int take_block_slot(context* c) {
  c->block_slot = -1;
  if (!(c->flags & PFM_FL_NOTIFY_BLOCK) || c->self || c->cpu >= 0 || thread_group_of(c->tid) != getpid()) return 0;
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
static void release_monitored_thread(context* c, int last) {
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
  const int read = wanted != 0 && perfmon_event_sets_read_set(c->opened, index_of(c, set)) == 0;
  for (unsigned other = 0; other < PFM_MAX_PMDS; ++other) {
    if (!(wanted >> other & 1)) continue;
    const long e = event_of_pmd(set, other);
    perfmon_value value;
    const int counting =
        read && e >= 0 && perfmon_event_sets_value(c->opened, index_of(c, set), (size_t)e, &value) == 0;
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
      reset_pmd(c, set, other, 0);
      const long o = event_of_pmd(set, other);
      if (o >= 0 && c->started) control(c, set, (size_t)o, PERFMON_EVENT_ENABLE);
    }
}

/* The sets' overflow hook: one overflow of a PMD of the active set, as the kernel recorded it. With
 * the default format, the sample is recorded and monitoring goes on until the buffer is full
 * (§3.6.5); without it, a notifying PMD masks at every overflow (§3.4.3): the set is held until
 * pfm_restart, and a switch its trigger asks for waits for it too. */
static perfmon_overflow_action overflowed(void* argument, size_t index, const perfmon_sample* overflow) {
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
    send_message(c, PFM_MSG_OVFL, set->id, 1ULL << pmd);
  }
  if (notify) block_monitored_thread(c);
  return PERFMON_OVERFLOW_HOLD;
}

/* The overflow thread: the kernel signals it the overflows of contexts loaded on another thread or
 * a CPU. It waits for them with every signal blocked (SIGIO too, which the kernel sends instead
 * when the real-time signal queue is full: then every such context's rings are looked at), and
 * handles them under the lock, so never in the middle of a call. It starts with the first such
 * context and stays. */
static pthread_once_t overflow_thread_once = PTHREAD_ONCE_INIT;
static pid_t overflow_thread_tid; /* 0 when it could not start */
static sem_t overflow_thread_started;

static void* serve_overflows(void* unused) {
  (void)unused;
  sigset_t wanted;
  sigemptyset(&wanted);
  sigaddset(&wanted, PFM2_OVERFLOW_SIGNAL);
  sigaddset(&wanted, SIGIO);
  overflow_thread_tid = gettid_();
  sem_post(&overflow_thread_started);
  for (;;) {
    siginfo_t info;
    const int sig = sigwaitinfo(&wanted, &info);
    if (sig < 0) continue;
    pthread_mutex_lock(&lock);
    for (context* c = contexts; c != NULL; c = c->next_context) {
      if (!c->loaded || c->self || c->opened == NULL) continue;
      if (sig == PFM2_OVERFLOW_SIGNAL)
        perfmon_event_sets_handle_overflow(c->opened, sig, info.si_fd);
      else
        perfmon_event_sets_handle_waiting(c->opened);
    }
    pthread_mutex_unlock(&lock);
  }
  return NULL;
}

static void start_overflow_thread(void) {
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

/* Every call on a context runs with the overflow signal blocked in the calling thread: the handler
 * never sees a context in the middle of a call (§3.7: no switch inside perfmon code). */
typedef struct {
  sigset_t saved;
} call_guard;

static void enter(call_guard* guard) {
  sigset_t overflow;
  sigemptyset(&overflow);
  sigaddset(&overflow, PFM2_OVERFLOW_SIGNAL);
  pthread_sigmask(SIG_BLOCK, &overflow, &guard->saved);
  pthread_mutex_lock(&lock);
}

static int leave(call_guard* guard, int result) {
  const int saved_errno = errno;
  pthread_mutex_unlock(&lock);
  pthread_sigmask(SIG_SETMASK, &guard->saved, NULL);
  errno = saved_errno;
  return result;
}

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
static void loaded_info(const context* c, size_t k, uint64_t* runs, uint64_t* active_ns, uint64_t* switch_pmds) {
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
static void close_event_sets(context* c) {
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
    loaded_info(c, k, &set->runs, &set->active_ns, &set->switch_pmds);
    set->events = set->triggers = 0;
  }
  c->active = perfmon_event_sets_active(c->opened);
  perfmon_event_sets_close(c->opened);
  c->opened = NULL;
}

/* The effective timeout of a set: what the kernel's timer takes (10 us at least). */
static uint64_t timeout_ns(const event_set* set) {
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
    out->periods[e] = set->period[e] = period_of(set->pmd[n].value);
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
  definition->timeout_ns = (set->flags & PFM_SETFL_TIME_SWITCH) ? timeout_ns(set) : 0;
  definition->triggers = out->triggers;
  definition->trigger_count = set->triggers;
  definition->overflow_periods = out->periods;
  definition->overflow_period_count = set->events;
  return overflows;
}

/* Opens the library's event sets on the loaded thread or CPU, disabled, set `first` active.
 * `reopening`: the context was loaded, and the first set's activation is not a new one. */
static int open_event_sets(context* c, size_t first, int reopening) {
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
    options.on_overflow = overflowed;
    options.hook_context = c;
  }
  int err = 0;
  if (signals && !c->self) {
    pthread_once(&overflow_thread_once, start_overflow_thread);
    if (overflow_thread_tid == 0) err = pfm2_fail(EAGAIN, "cannot start the thread that handles overflows");
    options.overflow_thread = overflow_thread_tid;
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

/* The thread group of thread `tid` (/proc/TID/status), or -1. */
static pid_t thread_group_of(pid_t tid) {
  char path[64];
  snprintf(path, sizeof path, "/proc/%d/status", (int)tid);
  FILE* status = fopen(path, "re");
  if (status == NULL) return -1;
  char line[256];
  int tgid = -1;
  while (fgets(line, sizeof line, status) != NULL)
    if (sscanf(line, "Tgid: %d", &tgid) == 1) break;
  fclose(status);
  return tgid;
}

/* PFM_MSG_END (§3.3.6): a thread of another's exits; the context is detached first. The thread's
 * pidfd becomes readable then (Linux 6.9 and later: PIDFD_THREAD); on older kernels the watcher
 * asks every 20 ms whether the thread is still there (tgkill without a signal). */
static void* watch(void* argument) {
  context* c = argument;
  struct pollfd fds[2] = {{c->watcher_stop[0], POLLIN, 0}, {c->watched, POLLIN, 0}};
  const int with_pidfd = c->watched >= 0;
  const pid_t group = with_pidfd ? -1 : thread_group_of(c->tid);
  for (;;) {
    const int ready = poll(fds, with_pidfd ? 2 : 1, with_pidfd ? -1 : 20);
    if (fds[0].revents) return NULL;
    if (ready < 0 && errno == EINTR) continue;
    if (with_pidfd || syscall(SYS_tgkill, group, c->tid, 0) != 0) break;
  }
  pthread_mutex_lock(&lock);
  if (c->loaded) {
    close_event_sets(c);
    release_monitored_thread(c, 1);
    c->loaded = c->started = 0;
    send_message(c, PFM_MSG_END, 0, 0);
  }
  pthread_mutex_unlock(&lock);
  return NULL;
}

/* Watches a loaded thread of another, from now: it may exit before the watcher runs. */
static void start_watcher(context* c) {
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

static void stop_watcher(context* c) {
  if (!c->watcher_running) return;
  if (write(c->watcher_stop[1], "x", 1) < 0) {
  }
  pthread_mutex_unlock(&lock); /* it may be waiting for the lock */
  pthread_join(c->watcher, NULL);
  pthread_mutex_lock(&lock);
  close(c->watcher_stop[0]);
  close(c->watcher_stop[1]);
  if (c->watched >= 0) close(c->watched);
  c->watcher_running = 0;
}

static void unload(context* c) {
  stop_watcher(c);
  if (!c->loaded) return;
  close_event_sets(c);
  release_monitored_thread(c, 1);
  c->loaded = c->started = 0;
  c->masked = 0;
}

/* ---- The calls ---------------------------------------------------------------------------------- */

static gid_t sys_gid = PFM_GROUP_ANY, thread_gid = PFM_GROUP_ANY;

static int in_group(gid_t group) {
  if (group == PFM_GROUP_ANY || getegid() == group) return 1;
  gid_t groups[256];
  const int count = getgroups(256, groups);
  for (int k = 0; k < count; ++k)
    if (groups[k] == group) return 1;
  return 0;
}

static const pfm_uuid_t no_format;
static const pfm_uuid_t default_format = PFM_DEFAULT_SMPL_UUID;

static void free_buffer(context* c) {
  perfmon_default_buffer_close(c->buffer);
  if (c->buffer_memory != NULL) munmap(c->buffer_memory, c->buffer_size);
  if (c->buffer_file >= 0) close(c->buffer_file);
}

/* The default format's buffer of `arg` (§3.6.2), in a memory file of whole pages. */
static int make_buffer(context* c, const pfm_default_smpl_arg_t* arg) {
  if (arg->buf_flags & ~(uint32_t)(PFM_DFL_SMPL_NO_HDR | PFM_DFL_SMPL_IIP_HDR))
    return pfm2_fail(EINVAL, "buf_flags has reserved bits set");
  const size_t page = (size_t)sysconf(_SC_PAGESIZE);
  if (arg->buf_size == 0 || arg->buf_size > ((size_t)1 << 40))
    return pfm2_fail(EINVAL, "buf_size %zu is no buffer size", arg->buf_size);
  c->buffer_size = (arg->buf_size + page - 1) / page * page;
  c->buffer_file = memfd_create("perfmon2-buffer", MFD_CLOEXEC);
  if (c->buffer_file < 0 || ftruncate(c->buffer_file, (off_t)c->buffer_size) != 0)
    return pfm2_fail(ENOMEM, "cannot make a sampling buffer of %zu bytes", c->buffer_size);
  c->buffer_memory = mmap(NULL, c->buffer_size, PROT_READ | PROT_WRITE, MAP_SHARED, c->buffer_file, 0);
  if (c->buffer_memory == MAP_FAILED) {
    c->buffer_memory = NULL;
    return pfm2_fail(ENOMEM, "cannot map a sampling buffer of %zu bytes", c->buffer_size);
  }
  /* The largest sample: an entry and every implemented PMD (§3.6.5). */
  size_t pmds = 0;
  for (unsigned n = 0; n < PFM_MAX_PMDS; ++n) pmds += (size_t)pfm2_register_exists(n);
  const uint32_t flags = (arg->buf_flags & PFM_DFL_SMPL_NO_HDR ? PERFMON_DEFAULT_NO_HEADER : 0) |
                         (arg->buf_flags & PFM_DFL_SMPL_IIP_HDR ? PERFMON_DEFAULT_IP_HEADER : 0);
  if (perfmon_default_buffer_open(c->buffer_memory, arg->buf_size, flags, pmds, &c->buffer) != 0)
    return pfm2_fail(EINVAL, "%s", perfmon_last_error());
  return 0;
}

int pfm_create_context(pfarg_ctx_t* ctx, int n) {
  if (ctx == NULL || n != 1) return pfm2_fail(EINVAL, "pfm_create_context takes one pfarg_ctx_t");
  if (ctx->ctx_flags & ~(uint32_t)(PFM_FL_NOTIFY_BLOCK | PFM_FL_SYSTEM_WIDE | PFM_FL_OVFL_NO_MSG))
    return pfm2_fail(EINVAL, "ctx_flags has reserved bits set");
  if ((ctx->ctx_flags & PFM_FL_NOTIFY_BLOCK) && (ctx->ctx_flags & PFM_FL_SYSTEM_WIDE))
    return pfm2_fail(EINVAL, "PFM_FL_NOTIFY_BLOCK is for per-thread contexts (table 3.2)");
  const int sampling = memcmp(ctx->ctx_smpl_buf_id, default_format, sizeof default_format) == 0;
  if (!sampling && memcmp(ctx->ctx_smpl_buf_id, no_format, sizeof no_format) != 0)
    return pfm2_fail(EINVAL, "no sampling format has this UUID: libperfmon2 has the default format (§3.6.1)");
  if (!in_group((ctx->ctx_flags & PFM_FL_SYSTEM_WIDE) ? sys_gid : thread_gid))
    return pfm2_fail(EPERM, "pfm_set_config restricts these contexts to another group of users");
  if (pfm2_catalog() == NULL) return pfm2_fail(ENOMEM, "cannot read this machine's events");
  context* c = calloc(1, sizeof *c);
  event_set* set0 = calloc(1, sizeof *set0);
  int ends[2];
  if (c == NULL || set0 == NULL || socketpair(AF_UNIX, SOCK_SEQPACKET, 0, ends) != 0) {
    const int err = errno;
    free(c);
    free(set0);
    return pfm2_fail(err == EMFILE || err == ENFILE ? err : ENOMEM, "cannot make the context's descriptor");
  }
  c->buffer_file = -1;
  fcntl(ends[1], F_SETFD, FD_CLOEXEC);
  fcntl(ends[1], F_SETFL, O_NONBLOCK);
  c->fd = ends[0];
  c->queue = ends[1];
  struct stat status;
  if (fstat(c->fd, &status) == 0) {
    c->fd_dev = status.st_dev;
    c->fd_ino = status.st_ino;
  }
  c->flags = ctx->ctx_flags;
  /* The format's arguments follow the pfarg_ctx_t (§3.5.3). */
  if (sampling && make_buffer(c, (const pfm_default_smpl_arg_t*)(ctx + 1)) != 0) {
    const int err = errno;
    free_buffer(c);
    close(ends[0]);
    close(ends[1]);
    free(c);
    free(set0);
    errno = err;
    return -1;
  }
  c->sets = set0;
  c->set_count = 1;
  c->cpu = -1;
  c->watched = -1;
  c->block_slot = -1;
  call_guard guard;
  enter(&guard);
  c->next_context = contexts;
  contexts = c;
  ctx->ctx_fd = c->fd;
  ctx->ctx_smpl_buf_size = sampling ? c->buffer_size : 0;
  return leave(&guard, 0);
}

/* The context of `fd`, entered; NULL (errno EBADF) when there is none. */
static context* enter_context(int fd, call_guard* guard) {
  enter(guard);
  context* c = find(fd);
  if (c == NULL) {
    leave(guard, 0);
    pfm2_fail(EBADF, "descriptor %d is not a perfmon2 context", fd);
  }
  return c;
}

/* The context of a call on `n` elements at `array`, entered; NULL (errno set) for no elements, a
 * descriptor that is no context, or (with `unloaded`) a loaded context. */
static context* enter_vector(int fd, const void* array, int n, const char* call, int unloaded, call_guard* guard) {
  if (array == NULL || n <= 0) {
    pfm2_fail(EINVAL, "%s takes one or more elements", call);
    return NULL;
  }
  context* c = enter_context(fd, guard);
  if (c != NULL && unloaded && c->loaded) {
    leave(guard, pfm2_fail(EBUSY, "%s works on an unloaded context only: unload it first", call));
    return NULL;
  }
  return c;
}

/* The set of register element k (a PMC when `pmc`); NULL when the set or the register does not
 * exist, with the element's return flag and errno set. */
static event_set* register_set(context* c, int k, uint16_t set_id, uint16_t reg_num, uint32_t* flags, int pmc) {
  *flags &= ~PFM_REG_RETFL_MASK;
  event_set* set = find_set(c, set_id);
  if (set == NULL) {
    *flags |= PFM_REG_RETFL_NOSET;
    pfm2_fail(EINVAL, "element %d: no event set %u", k, set_id);
  } else if (!pfm2_register_exists(reg_num)) {
    *flags |= PFM_REG_RETFL_NOTAVAIL;
    pfm2_fail(EINVAL, "element %d: no %s%u on this machine (pfm_getinfo_%s lists them)", k, pmc ? "PMC" : "PMD",
              reg_num, pmc ? "pmcs" : "pmds");
    set = NULL;
  }
  return set;
}

/* Writing the registers of a loaded context changes what is open: the counts go back to the PMDs
 * (suspend), the writes apply, and the sets open again, held if masked, started if they were
 * (resume). A switch that waited for the restart is lost then. */
static void suspend(context* c) {
  stop_watcher(c);
  if (c->loaded) close_event_sets(c);
}

static int resume(context* c, int result) {
  const int saved_errno = errno;
  if (!c->loaded) return result;
  if (open_event_sets(c, c->active, 1) != 0) {
    unload(c);
    return -1;
  }
  if (c->masked) perfmon_event_sets_hold(c->opened);
  if (c->started) perfmon_event_sets_start(c->opened);
  start_watcher(c);
  errno = saved_errno;
  return result;
}

int pfm_write_pmcs(int fd, pfarg_pmc_t* pmcs, int n) {
  call_guard guard;
  context* c = enter_vector(fd, pmcs, n, "pfm_write_pmcs", 0, &guard);
  if (c == NULL) return -1;
  suspend(c);
  for (int k = 0; k < n; ++k) {
    pfarg_pmc_t* r = &pmcs[k];
    event_set* set = register_set(c, k, r->reg_set, r->reg_num, &r->reg_flags, 1);
    char text[48];
    if (set == NULL) return leave(&guard, resume(c, -1));
    if ((r->reg_flags & ~(uint32_t)(PFM_REGFL_OVFL_NOTIFY | PFM_REGFL_RANDOM)) ||
        pfm2_event_of(r->reg_num, r->reg_value, text, sizeof text) < 0 ||
        (r->reg_smpl_pmds[0] != 0 && c->buffer == NULL)) {
      /* reg_smpl_pmds is for a sampling format (§3.1.2). */
      r->reg_flags |= PFM_REG_RETFL_EINVAL;
      return leave(&guard, resume(c, pfm2_fail(EINVAL, "element %d: value 0x%llx or flags of PMC%u are invalid", k,
                                               (unsigned long long)r->reg_value, r->reg_num)));
    }
    for (unsigned other = 0; other < PFM_MAX_PMDS; ++other)
      if (((r->reg_reset_pmds[0] | r->reg_smpl_pmds[0]) >> other & 1) && !pfm2_register_exists(other)) {
        r->reg_flags |= PFM_REG_RETFL_EINVAL;
        return leave(&guard, resume(c, pfm2_fail(EINVAL, "element %d: a bit vector names PMD%u, which does not exist",
                                                 k, other)));
      }
    set->pmc[r->reg_num] = r->reg_value;
    set->pmc_flags[r->reg_num] = r->reg_flags;
    set->reset_pmds[r->reg_num] = r->reg_reset_pmds[0];
    set->smpl_pmds[r->reg_num] = r->reg_smpl_pmds[0];
    set->written_pmcs |= 1ULL << r->reg_num;
  }
  return leave(&guard, resume(c, 0));
}

int pfm_write_pmds(int fd, pfarg_pmd_t* pmds, int n) {
  call_guard guard;
  context* c = enter_vector(fd, pmds, n, "pfm_write_pmds", 0, &guard);
  if (c == NULL) return -1;
  suspend(c);
  for (int k = 0; k < n; ++k) {
    pfarg_pmd_t* r = &pmds[k];
    event_set* set = register_set(c, k, r->reg_set, r->reg_num, &r->reg_flags, 0);
    if (set == NULL) return leave(&guard, resume(c, -1));
    if (r->reg_flags != 0) {
      r->reg_flags |= PFM_REG_RETFL_EINVAL;
      return leave(&guard, resume(c, pfm2_fail(EINVAL, "element %d: PMDs take no flags", k)));
    }
    pmd_state* p = &set->pmd[r->reg_num];
    p->value = p->last_reset = r->reg_value;
    p->long_reset = r->reg_long_reset;
    p->short_reset = r->reg_short_reset;
    p->ovflsw_thres = r->reg_ovflsw_thres;
    p->random_mask = r->reg_random_mask;
    p->random_state = r->reg_random_seed;
  }
  return leave(&guard, resume(c, 0));
}

int pfm_read_pmds(int fd, pfarg_pmd_t* pmds, int n) {
  call_guard guard;
  context* c = enter_vector(fd, pmds, n, "pfm_read_pmds", 0, &guard);
  if (c == NULL) return -1;
  if (c->opened != NULL && perfmon_event_sets_read(c->opened) != 0)
    return leave(&guard, pfm2_fail(EBUSY, "cannot read the counters of the loaded context"));
  for (int k = 0; k < n; ++k) {
    pfarg_pmd_t* r = &pmds[k];
    const event_set* set = register_set(c, k, r->reg_set, r->reg_num, &r->reg_flags, 0);
    if (set == NULL) return leave(&guard, -1);
    const pmd_state* p = &set->pmd[r->reg_num];
    r->reg_value = p->value;
    const size_t index = index_of(c, set);
    const long e = c->opened != NULL ? event_of_pmd(set, r->reg_num) : -1;
    perfmon_value value;
    if (e >= 0 && perfmon_event_sets_value(c->opened, index, (size_t)e, &value) == 0)
      r->reg_value = set->base[e] + value.raw;
    r->reg_last_reset_val = p->last_reset;
    r->reg_ovflsw_thres = (set->flags & PFM_SETFL_OVFL_SWITCH) ? p->ovflsw_thres : 0;
    for (size_t t = 0; c->opened != NULL && t < set->triggers; ++t)
      if (set->trigger_pmd[t] == r->reg_num)
        r->reg_ovflsw_thres = perfmon_event_sets_overflows_left(c->opened, index, t);
  }
  return leave(&guard, 0);
}

int pfm_load_context(int fd, pfarg_load_t* load) {
  if (load == NULL) return pfm2_fail(EFAULT, "pfm_load_context takes a pfarg_load_t");
  call_guard guard;
  context* c = enter_context(fd, &guard);
  if (c == NULL) return -1;
  if (c->loaded) return leave(&guard, pfm2_fail(EBUSY, "the context is loaded already: unload it first"));
  event_set* set = find_set(c, load->load_set);
  if (set == NULL) return leave(&guard, pfm2_fail(EINVAL, "no event set %u", load->load_set));
  for (size_t k = 0; k < c->set_count; ++k)
    if ((c->sets[k].flags & PFM_SETFL_EXPL_NEXT) && find_set(c, c->sets[k].next) == NULL)
      return leave(&guard,
                   pfm2_fail(EINVAL, "set %u's explicit next, set %u, does not exist", c->sets[k].id, c->sets[k].next));
  const int system_wide = (c->flags & PFM_FL_SYSTEM_WIDE) != 0;
  const pid_t caller = gettid_();
  if (system_wide && load->load_pid != caller)
    return leave(&guard, pfm2_fail(EINVAL,
                                   "a system-wide context is loaded by the thread that monitors the CPU: "
                                   "load_pid must be the caller's gettid() (§3.1.7)"));
  if (load->load_pid <= 0) return leave(&guard, pfm2_fail(EINVAL, "load_pid %d is no thread", load->load_pid));
  const int cpu = system_wide ? sched_getcpu() : -1;
  for (context* other = contexts; other != NULL; other = other->next_context) {
    if (!other->loaded) continue;
    if (system_wide && other->cpu == cpu)
      return leave(&guard, pfm2_fail(EBUSY, "CPU %d has a system-wide context already", cpu));
    if (!system_wide && other->cpu < 0 && other->tid == load->load_pid)
      return leave(&guard, pfm2_fail(EBUSY, "thread %d has a context attached already", load->load_pid));
  }
  if ((c->flags & PFM_FL_NOTIFY_BLOCK) && load->load_pid == caller)
    return leave(&guard, pfm2_fail(EINVAL, "PFM_FL_NOTIFY_BLOCK is for a thread other than the caller (table 3.2)"));
  c->tid = load->load_pid;
  c->cpu = cpu;
  c->self = !system_wide && load->load_pid == caller;
  c->masked = 0;
  c->overflowed = 0;
  /* The message queue is reset (§3.3.5). */
  pfm_msg_t stale;
  while (recv(c->fd, &stale, sizeof stale, MSG_DONTWAIT) > 0) {
  }
  for (size_t k = 0; k < c->set_count; ++k) c->sets[k].switch_pmds = 0;
  if (take_block_slot(c) != 0) return leave(&guard, -1);
  if (open_event_sets(c, index_of(c, set), 0) != 0) {
    release_monitored_thread(c, 1);
    return leave(&guard, -1);
  }
  c->loaded = 1;
  start_watcher(c);
  return leave(&guard, 0);
}

int pfm_unload_context(int fd) {
  call_guard guard;
  context* c = enter_context(fd, &guard);
  if (c == NULL) return -1;
  if (!c->loaded) return leave(&guard, pfm2_fail(EBUSY, "the context is not loaded"));
  unload(c);
  return leave(&guard, 0);
}

int pfm_start(int fd, pfarg_start_t* start) {
  call_guard guard;
  context* c = enter_context(fd, &guard);
  if (c == NULL) return -1;
  if (!c->loaded) return leave(&guard, pfm2_fail(EBUSY, "start needs a loaded context (pfm_load_context)"));
  if (start != NULL) {
    event_set* set = find_set(c, start->start_set);
    if (set == NULL) return leave(&guard, pfm2_fail(EINVAL, "no event set %u", start->start_set));
    if (perfmon_event_sets_switch_to(c->opened, index_of(c, set)) != 0)
      return leave(&guard, pfm2_fail(EBUSY, "%s", perfmon_last_error()));
  }
  c->started = 1;
  /* Masked, the set stays held until pfm_restart. */
  if (perfmon_event_sets_start(c->opened) != 0) return leave(&guard, pfm2_fail(EBUSY, "%s", perfmon_last_error()));
  return leave(&guard, 0);
}

int pfm_stop(int fd) {
  call_guard guard;
  context* c = enter_context(fd, &guard);
  if (c == NULL) return -1;
  if (!c->loaded) return leave(&guard, pfm2_fail(EBUSY, "stop needs a loaded context"));
  /* What overflowed before is in samples and messages when the call returns. */
  perfmon_event_sets_handle_waiting(c->opened);
  c->started = 0;
  if (perfmon_event_sets_stop(c->opened) != 0) return leave(&guard, pfm2_fail(EBUSY, "%s", perfmon_last_error()));
  return leave(&guard, 0);
}

int pfm_restart(int fd) {
  call_guard guard;
  context* c = enter_context(fd, &guard);
  if (c == NULL) return -1;
  if (!c->loaded) return leave(&guard, pfm2_fail(EBUSY, "restart needs a loaded context"));
  /* The default format's buffer starts again, after a notification or not (an active restart). */
  if (c->buffer != NULL) perfmon_default_buffer_restart(c->buffer);
  if (!c->masked) return leave(&guard, 0);
  event_set* set = &c->sets[perfmon_event_sets_active(c->opened)];
  uint64_t reset = c->overflowed;
  for (unsigned pmd = 0; pmd < PFM_MAX_PMDS; ++pmd)
    if (c->overflowed >> pmd & 1) reset |= set->reset_pmds[pmd];
  for (unsigned pmd = 0; pmd < PFM_MAX_PMDS; ++pmd)
    if (reset >> pmd & 1) reset_pmd(c, set, pmd, 1);
  c->overflowed = 0;
  c->masked = 0;
  /* The set counts again, to its long resets; or a switch that waited for the restart happens now
   * (§3.7.6). */
  const int resumed = perfmon_event_sets_resume(c->opened);
  release_monitored_thread(c, 0); /* a thread the notification blocked goes on (§3.1.9) */
  if (resumed != 0) return leave(&guard, pfm2_fail(EBUSY, "%s", perfmon_last_error()));
  return leave(&guard, 0);
}

/* ---- Event sets (§3.1.10 - 3.1.12) ----------------------------------------------------------------- */

int pfm_create_evtsets(int fd, pfarg_setdesc_t* sets, int n) {
  call_guard guard;
  context* c = enter_vector(fd, sets, n, "pfm_create_evtsets", 1, &guard);
  if (c == NULL) return -1;
  for (int k = 0; k < n; ++k) {
    pfarg_setdesc_t* d = &sets[k];
    d->set_flags &= ~(PFM_SET_RETFL_EINVAL | PFM_SET_RETFL_NOSET);
    const uint32_t known = PFM_SETFL_OVFL_SWITCH | PFM_SETFL_TIME_SWITCH | PFM_SETFL_EXPL_NEXT | PFM_SETFL_EXCL_IDLE;
    if ((d->set_flags & ~known) || (d->set_flags & PFM_SETFL_OVFL_SWITCH && d->set_flags & PFM_SETFL_TIME_SWITCH)) {
      d->set_flags |= PFM_SET_RETFL_EINVAL;
      return leave(&guard, pfm2_fail(EINVAL, "element %d: set_flags are invalid (one way of switching at most)", k));
    }
    event_set* set = find_set(c, d->set_id);
    if (set == NULL) {
      event_set* grown = realloc(c->sets, (c->set_count + 1) * sizeof *grown);
      if (grown == NULL) return leave(&guard, pfm2_fail(ENOMEM, "no memory for another event set"));
      c->sets = grown;
      size_t at = c->set_count;
      while (at > 0 && c->sets[at - 1].id > d->set_id) {
        c->sets[at] = c->sets[at - 1];
        --at;
      }
      set = &c->sets[at];
      memset(set, 0, sizeof *set);
      set->id = d->set_id;
      ++c->set_count;
    }
    set->flags = d->set_flags;
    set->next = d->set_id_next;
    set->timeout = d->set_timeout;
    if (set->flags & PFM_SETFL_TIME_SWITCH) { /* the effective timeout goes back (§3.1.10) */
      const uint64_t timeout = timeout_ns(set);
      d->set_timeout.tv_sec = (time_t)(timeout / 1000000000u);
      d->set_timeout.tv_nsec = (long)(timeout % 1000000000u);
    }
  }
  return leave(&guard, 0);
}

int pfm_delete_evtsets(int fd, pfarg_setdesc_t* sets, int n) {
  call_guard guard;
  context* c = enter_vector(fd, sets, n, "pfm_delete_evtsets", 1, &guard);
  if (c == NULL) return -1;
  for (int k = 0; k < n; ++k) {
    pfarg_setdesc_t* d = &sets[k];
    d->set_flags &= ~(PFM_SET_RETFL_EINVAL | PFM_SET_RETFL_NOSET);
    event_set* set = find_set(c, d->set_id);
    if (set == NULL || d->set_id == 0) {
      d->set_flags |= set == NULL ? PFM_SET_RETFL_NOSET : PFM_SET_RETFL_EINVAL;
      return leave(&guard, pfm2_fail(EINVAL, "element %d: %s", k,
                                     set == NULL ? "no such event set" : "set 0 always exists (§3.7.5)"));
    }
    const size_t at = (size_t)(set - c->sets);
    memmove(set, set + 1, (c->set_count - at - 1) * sizeof *set);
    --c->set_count;
  }
  return leave(&guard, 0);
}

int pfm_getinfo_evtsets(int fd, pfarg_setinfo_t* sets, int n) {
  call_guard guard;
  context* c = enter_vector(fd, sets, n, "pfm_getinfo_evtsets", 0, &guard);
  if (c == NULL) return -1;
  for (int k = 0; k < n; ++k) {
    pfarg_setinfo_t* info = &sets[k];
    info->set_flags &= ~(PFM_SET_RETFL_EINVAL | PFM_SET_RETFL_NOSET);
    event_set* set = find_set(c, info->set_id);
    if (set == NULL) {
      info->set_flags |= PFM_SET_RETFL_NOSET;
      return leave(&guard, pfm2_fail(EINVAL, "element %d: no event set %u", k, info->set_id));
    }
    const size_t index = index_of(c, set);
    info->set_flags = set->flags;
    info->set_id_next = (set->flags & PFM_SETFL_EXPL_NEXT) ? set->next : c->sets[(index + 1) % c->set_count].id;
    /* Loaded, what is left of the effective timeout in the set's current period (§3.1.12). */
    uint64_t timeout = (set->flags & PFM_SETFL_TIME_SWITCH) ? timeout_ns(set) : 0;
    perfmon_set_info library;
    if (timeout != 0 && c->opened != NULL && perfmon_event_sets_info(c->opened, index, &library) == 0)
      timeout = library.timeout_left_ns;
    info->set_timeout.tv_sec = (time_t)(timeout / 1000000000u);
    info->set_timeout.tv_nsec = (long)(timeout % 1000000000u);
    if (c->opened != NULL) perfmon_event_sets_read_set(c->opened, index);
    uint64_t runs, active, switch_pmds;
    loaded_info(c, index, &runs, &active, &switch_pmds);
    info->set_runs = runs;
    info->set_switch_pmds[0] = switch_pmds;
    info->set_act_duration.tv_sec = (time_t)(active / 1000000000u);
    info->set_act_duration.tv_nsec = (long)(active % 1000000000u);
  }
  return leave(&guard, 0);
}

/* ---- Registers and configuration (§3.1.13, 3.1.14, 3.1.16, 3.1.17) ---------------------------- */

static int getinfo(pfarg_pmcinfo_t* regs, int n, int pmc) {
  if (regs == NULL || n <= 0) return pfm2_fail(EINVAL, "pfm_getinfo_pmcs/pmds take one or more elements");
  for (int k = 0; k < n; ++k) {
    regs[k].reg_flags &= ~PFM_REG_RETFL_MASK;
    if (pfm2_register_info(regs[k].reg_num, pmc, &regs[k]) != 0) {
      regs[k].reg_flags |= PFM_REG_RETFL_EINVAL;
      return pfm2_fail(EINVAL, "element %d: no %s%u on this machine", k, pmc ? "PMC" : "PMD", regs[k].reg_num);
    }
  }
  return 0;
}

int pfm_getinfo_pmcs(pfarg_pmcinfo_t* pmcs, int n) {
  return getinfo(pmcs, n, 1);
}
int pfm_getinfo_pmds(pfarg_pmdinfo_t* pmds, int n) {
  return getinfo(pmds, n, 0);
}

int pfm_get_config(pfarg_config_t* config) {
  if (config == NULL) return pfm2_fail(EFAULT, "pfm_get_config takes a pfarg_config_t");
  memset(config, 0, sizeof *config);
  config->cf_version = PFM_VERSION;
  for (unsigned n = 0; n < PFM_MAX_PMCS; ++n)
    if (pfm2_register_exists(n)) config->cf_impl_pmcs[n / 64] |= 1ULL << (n % 64);
  memcpy(config->cf_impl_pmds, config->cf_impl_pmcs, sizeof config->cf_impl_pmds);
  config->cf_sys_gid = sys_gid;
  config->cf_thread_gid = thread_gid;
  config->cf_arg_size_max = (size_t)sysconf(_SC_PAGESIZE);
  config->cf_smpl_buf_size_max = 0;
  config->cf_counter_width = (uint16_t)pfm2_counter_width();
  return 0;
}

int pfm_set_config(pfarg_config_t* config) {
  if (config == NULL) return pfm2_fail(EFAULT, "pfm_set_config takes a pfarg_config_t");
  if (geteuid() != 0) return pfm2_fail(EPERM, "only root changes perfmon2's configuration (§3.1.16)");
  sys_gid = config->cf_sys_gid;
  thread_gid = config->cf_thread_gid;
  return 0;
}

/* ---- close() ------------------------------------------------------------------------------------- */

void pfm2_context_closed(int fd) {
  call_guard guard;
  context* c = enter_context(fd, &guard);
  if (c == NULL) return;
  unload(c);
  for (context** link = &contexts; *link != NULL; link = &(*link)->next_context)
    if (*link == c) {
      *link = c->next_context;
      break;
    }
  close(c->queue);
  free_buffer(c);
  free(c->sets);
  free(c);
  leave(&guard, 0);
}

/* ---- mmap() of the sampling buffer (§3.5.4) -------------------------------------------------------- */

void* pfm2_context_mmap(int fd, void* address, size_t length, int protection, int flags, off_t offset) {
  call_guard guard;
  context* c = enter_context(fd, &guard);
  if (c == NULL) return MAP_FAILED;
  const char* wrong = NULL;
  if (c->buffer == NULL)
    wrong = "the context has no sampling buffer";
  else if (protection != PROT_READ)
    wrong = "the buffer maps read-only: PROT_READ";
  else if ((flags & MAP_TYPE) != MAP_SHARED || (flags & (MAP_LOCKED | MAP_GROWSDOWN)))
    wrong = "the buffer maps MAP_SHARED, without MAP_LOCKED or MAP_GROWSDOWN";
  else if (length != c->buffer_size || offset != 0)
    wrong = "the buffer maps whole: ctx_smpl_buf_size bytes from offset 0";
  else if (c->program_mapping != NULL)
    wrong = "the buffer is mapped already: once per process";
  if (wrong != NULL) {
    leave(&guard, pfm2_fail(EINVAL, "%s", wrong));
    return MAP_FAILED;
  }
  void* mapping = mmap(address, length, PROT_READ, flags, c->buffer_file, 0);
  if (mapping != MAP_FAILED) c->program_mapping = mapping;
  leave(&guard, 0);
  return mapping;
}

void pfm2_context_unmapped(void* address) {
  int ours = 0; /* most munmaps are not of a buffer: those take no lock */
  for (context* c = contexts; c != NULL && !ours; c = c->next_context) ours = c->program_mapping == address;
  if (!ours) return;
  call_guard guard;
  enter(&guard);
  for (context* c = contexts; c != NULL; c = c->next_context)
    if (c->program_mapping == address) c->program_mapping = NULL;
  leave(&guard, 0);
}
