/* SPDX-License-Identifier: Apache-2.0 */
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
  for (context* c = pfm2_contexts; c != NULL; c = c->next_context)
    if (is_descriptor_of(c, fd)) return 1;
  return 0;
}

static context* find(int fd) {
  for (context* c = pfm2_contexts; c != NULL; c = c->next_context)
    if (is_descriptor_of(c, fd)) return c;
  return NULL;
}

static event_set* find_set(context* c, uint16_t id) {
  for (size_t k = 0; k < c->set_count; ++k)
    if (c->sets[k].id == id) return &c->sets[k];
  return NULL;
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
  pfm2_enter(&guard);
  c->next_context = pfm2_contexts;
  pfm2_contexts = c;
  ctx->ctx_fd = c->fd;
  ctx->ctx_smpl_buf_size = sampling ? c->buffer_size : 0;
  return pfm2_leave(&guard, 0);
}

/* The context of `fd`, entered; NULL (errno EBADF) when there is none. */
static context* enter_context(int fd, call_guard* guard) {
  pfm2_enter(guard);
  context* c = find(fd);
  if (c == NULL) {
    pfm2_leave(guard, 0);
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
    pfm2_leave(guard, pfm2_fail(EBUSY, "%s works on an unloaded context only: unload it first", call));
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
  pfm2_stop_watcher(c);
  if (c->loaded) pfm2_close_event_sets(c);
}

static int resume(context* c, int result) {
  const int saved_errno = errno;
  if (!c->loaded) return result;
  if (pfm2_open_event_sets(c, c->active, 1) != 0) {
    pfm2_unload(c);
    return -1;
  }
  if (c->masked) perfmon_event_sets_hold(c->opened);
  if (c->started) perfmon_event_sets_start(c->opened);
  pfm2_start_watcher(c);
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
    if (set == NULL) return pfm2_leave(&guard, resume(c, -1));
    if ((r->reg_flags & ~(uint32_t)(PFM_REGFL_OVFL_NOTIFY | PFM_REGFL_RANDOM)) ||
        pfm2_event_of(r->reg_num, r->reg_value, text, sizeof text) < 0 ||
        (r->reg_smpl_pmds[0] != 0 && c->buffer == NULL)) {
      /* reg_smpl_pmds is for a sampling format (§3.1.2). */
      r->reg_flags |= PFM_REG_RETFL_EINVAL;
      return pfm2_leave(&guard, resume(c, pfm2_fail(EINVAL, "element %d: value 0x%llx or flags of PMC%u are invalid", k,
                                                    (unsigned long long)r->reg_value, r->reg_num)));
    }
    for (unsigned other = 0; other < PFM_MAX_PMDS; ++other)
      if (((r->reg_reset_pmds[0] | r->reg_smpl_pmds[0]) >> other & 1) && !pfm2_register_exists(other)) {
        r->reg_flags |= PFM_REG_RETFL_EINVAL;
        return pfm2_leave(
            &guard,
            resume(c, pfm2_fail(EINVAL, "element %d: a bit vector names PMD%u, which does not exist", k, other)));
      }
    set->pmc[r->reg_num] = r->reg_value;
    set->pmc_flags[r->reg_num] = r->reg_flags;
    set->reset_pmds[r->reg_num] = r->reg_reset_pmds[0];
    set->smpl_pmds[r->reg_num] = r->reg_smpl_pmds[0];
    set->written_pmcs |= 1ULL << r->reg_num;
  }
  return pfm2_leave(&guard, resume(c, 0));
}

int pfm_write_pmds(int fd, pfarg_pmd_t* pmds, int n) {
  call_guard guard;
  context* c = enter_vector(fd, pmds, n, "pfm_write_pmds", 0, &guard);
  if (c == NULL) return -1;
  suspend(c);
  for (int k = 0; k < n; ++k) {
    pfarg_pmd_t* r = &pmds[k];
    event_set* set = register_set(c, k, r->reg_set, r->reg_num, &r->reg_flags, 0);
    if (set == NULL) return pfm2_leave(&guard, resume(c, -1));
    if (r->reg_flags != 0) {
      r->reg_flags |= PFM_REG_RETFL_EINVAL;
      return pfm2_leave(&guard, resume(c, pfm2_fail(EINVAL, "element %d: PMDs take no flags", k)));
    }
    pmd_state* p = &set->pmd[r->reg_num];
    p->value = p->last_reset = r->reg_value;
    p->long_reset = r->reg_long_reset;
    p->short_reset = r->reg_short_reset;
    p->ovflsw_thres = r->reg_ovflsw_thres;
    p->random_mask = r->reg_random_mask;
    p->random_state = r->reg_random_seed;
  }
  return pfm2_leave(&guard, resume(c, 0));
}

int pfm_read_pmds(int fd, pfarg_pmd_t* pmds, int n) {
  call_guard guard;
  context* c = enter_vector(fd, pmds, n, "pfm_read_pmds", 0, &guard);
  if (c == NULL) return -1;
  if (c->opened != NULL && perfmon_event_sets_read(c->opened) != 0)
    return pfm2_leave(&guard, pfm2_fail(EBUSY, "cannot read the counters of the loaded context"));
  for (int k = 0; k < n; ++k) {
    pfarg_pmd_t* r = &pmds[k];
    const event_set* set = register_set(c, k, r->reg_set, r->reg_num, &r->reg_flags, 0);
    if (set == NULL) return pfm2_leave(&guard, -1);
    const pmd_state* p = &set->pmd[r->reg_num];
    r->reg_value = p->value;
    const size_t index = pfm2_index_of(c, set);
    const long e = c->opened != NULL ? pfm2_event_of_pmd(set, r->reg_num) : -1;
    perfmon_value value;
    if (e >= 0 && perfmon_event_sets_value(c->opened, index, (size_t)e, &value) == 0)
      r->reg_value = set->base[e] + value.raw;
    r->reg_last_reset_val = p->last_reset;
    r->reg_ovflsw_thres = (set->flags & PFM_SETFL_OVFL_SWITCH) ? p->ovflsw_thres : 0;
    for (size_t t = 0; c->opened != NULL && t < set->triggers; ++t)
      if (set->trigger_pmd[t] == r->reg_num)
        r->reg_ovflsw_thres = perfmon_event_sets_overflows_left(c->opened, index, t);
  }
  return pfm2_leave(&guard, 0);
}

int pfm_load_context(int fd, pfarg_load_t* load) {
  if (load == NULL) return pfm2_fail(EFAULT, "pfm_load_context takes a pfarg_load_t");
  call_guard guard;
  context* c = enter_context(fd, &guard);
  if (c == NULL) return -1;
  if (c->loaded) return pfm2_leave(&guard, pfm2_fail(EBUSY, "the context is loaded already: unload it first"));
  event_set* set = find_set(c, load->load_set);
  if (set == NULL) return pfm2_leave(&guard, pfm2_fail(EINVAL, "no event set %u", load->load_set));
  for (size_t k = 0; k < c->set_count; ++k)
    if ((c->sets[k].flags & PFM_SETFL_EXPL_NEXT) && find_set(c, c->sets[k].next) == NULL)
      return pfm2_leave(
          &guard, pfm2_fail(EINVAL, "set %u's explicit next, set %u, does not exist", c->sets[k].id, c->sets[k].next));
  const int system_wide = (c->flags & PFM_FL_SYSTEM_WIDE) != 0;
  const pid_t caller = pfm2_gettid();
  if (system_wide && load->load_pid != caller)
    return pfm2_leave(&guard, pfm2_fail(EINVAL,
                                        "a system-wide context is loaded by the thread that monitors the CPU: "
                                        "load_pid must be the caller's gettid() (§3.1.7)"));
  if (load->load_pid <= 0) return pfm2_leave(&guard, pfm2_fail(EINVAL, "load_pid %d is no thread", load->load_pid));
  const int cpu = system_wide ? sched_getcpu() : -1;
  for (context* other = pfm2_contexts; other != NULL; other = other->next_context) {
    if (!other->loaded) continue;
    if (system_wide && other->cpu == cpu)
      return pfm2_leave(&guard, pfm2_fail(EBUSY, "CPU %d has a system-wide context already", cpu));
    if (!system_wide && other->cpu < 0 && other->tid == load->load_pid)
      return pfm2_leave(&guard, pfm2_fail(EBUSY, "thread %d has a context attached already", load->load_pid));
  }
  if ((c->flags & PFM_FL_NOTIFY_BLOCK) && load->load_pid == caller)
    return pfm2_leave(&guard,
                      pfm2_fail(EINVAL, "PFM_FL_NOTIFY_BLOCK is for a thread other than the caller (table 3.2)"));
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
  if (pfm2_take_block_slot(c) != 0) return pfm2_leave(&guard, -1);
  if (pfm2_open_event_sets(c, pfm2_index_of(c, set), 0) != 0) {
    pfm2_release_monitored_thread(c, 1);
    return pfm2_leave(&guard, -1);
  }
  c->loaded = 1;
  pfm2_start_watcher(c);
  return pfm2_leave(&guard, 0);
}

int pfm_unload_context(int fd) {
  call_guard guard;
  context* c = enter_context(fd, &guard);
  if (c == NULL) return -1;
  if (!c->loaded) return pfm2_leave(&guard, pfm2_fail(EBUSY, "the context is not loaded"));
  pfm2_unload(c);
  return pfm2_leave(&guard, 0);
}

int pfm_start(int fd, pfarg_start_t* start) {
  call_guard guard;
  context* c = enter_context(fd, &guard);
  if (c == NULL) return -1;
  if (!c->loaded) return pfm2_leave(&guard, pfm2_fail(EBUSY, "start needs a loaded context (pfm_load_context)"));
  if (start != NULL) {
    event_set* set = find_set(c, start->start_set);
    if (set == NULL) return pfm2_leave(&guard, pfm2_fail(EINVAL, "no event set %u", start->start_set));
    if (perfmon_event_sets_switch_to(c->opened, pfm2_index_of(c, set)) != 0)
      return pfm2_leave(&guard, pfm2_fail(EBUSY, "%s", perfmon_last_error()));
  }
  c->started = 1;
  /* Masked, the set stays held until pfm_restart. */
  if (perfmon_event_sets_start(c->opened) != 0) return pfm2_leave(&guard, pfm2_fail(EBUSY, "%s", perfmon_last_error()));
  return pfm2_leave(&guard, 0);
}

int pfm_stop(int fd) {
  call_guard guard;
  context* c = enter_context(fd, &guard);
  if (c == NULL) return -1;
  if (!c->loaded) return pfm2_leave(&guard, pfm2_fail(EBUSY, "stop needs a loaded context"));
  /* What overflowed before is in samples and messages when the call returns. */
  perfmon_event_sets_handle_waiting(c->opened);
  c->started = 0;
  if (perfmon_event_sets_stop(c->opened) != 0) return pfm2_leave(&guard, pfm2_fail(EBUSY, "%s", perfmon_last_error()));
  return pfm2_leave(&guard, 0);
}

int pfm_restart(int fd) {
  call_guard guard;
  context* c = enter_context(fd, &guard);
  if (c == NULL) return -1;
  if (!c->loaded) return pfm2_leave(&guard, pfm2_fail(EBUSY, "restart needs a loaded context"));
  /* The default format's buffer starts again, after a notification or not (an active restart). */
  if (c->buffer != NULL) perfmon_default_buffer_restart(c->buffer);
  if (!c->masked) return pfm2_leave(&guard, 0);
  event_set* set = &c->sets[perfmon_event_sets_active(c->opened)];
  uint64_t reset = c->overflowed;
  for (unsigned pmd = 0; pmd < PFM_MAX_PMDS; ++pmd)
    if (c->overflowed >> pmd & 1) reset |= set->reset_pmds[pmd];
  for (unsigned pmd = 0; pmd < PFM_MAX_PMDS; ++pmd)
    if (reset >> pmd & 1) pfm2_reset_pmd(c, set, pmd, 1);
  c->overflowed = 0;
  c->masked = 0;
  /* The set counts again, to its long resets; or a switch that waited for the restart happens now
   * (§3.7.6). */
  const int resumed = perfmon_event_sets_resume(c->opened);
  pfm2_release_monitored_thread(c, 0); /* a thread the notification blocked goes on (§3.1.9) */
  if (resumed != 0) return pfm2_leave(&guard, pfm2_fail(EBUSY, "%s", perfmon_last_error()));
  return pfm2_leave(&guard, 0);
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
      return pfm2_leave(&guard,
                        pfm2_fail(EINVAL, "element %d: set_flags are invalid (one way of switching at most)", k));
    }
    event_set* set = find_set(c, d->set_id);
    if (set == NULL) {
      event_set* grown = realloc(c->sets, (c->set_count + 1) * sizeof *grown);
      if (grown == NULL) return pfm2_leave(&guard, pfm2_fail(ENOMEM, "no memory for another event set"));
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
      const uint64_t timeout = pfm2_timeout_ns(set);
      d->set_timeout.tv_sec = (time_t)(timeout / 1000000000u);
      d->set_timeout.tv_nsec = (long)(timeout % 1000000000u);
    }
  }
  return pfm2_leave(&guard, 0);
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
      return pfm2_leave(&guard, pfm2_fail(EINVAL, "element %d: %s", k,
                                          set == NULL ? "no such event set" : "set 0 always exists (§3.7.5)"));
    }
    const size_t at = (size_t)(set - c->sets);
    memmove(set, set + 1, (c->set_count - at - 1) * sizeof *set);
    --c->set_count;
  }
  return pfm2_leave(&guard, 0);
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
      return pfm2_leave(&guard, pfm2_fail(EINVAL, "element %d: no event set %u", k, info->set_id));
    }
    const size_t index = pfm2_index_of(c, set);
    info->set_flags = set->flags;
    info->set_id_next = (set->flags & PFM_SETFL_EXPL_NEXT) ? set->next : c->sets[(index + 1) % c->set_count].id;
    /* Loaded, what is left of the effective timeout in the set's current period (§3.1.12). */
    uint64_t timeout = (set->flags & PFM_SETFL_TIME_SWITCH) ? pfm2_timeout_ns(set) : 0;
    perfmon_set_info library;
    if (timeout != 0 && c->opened != NULL && perfmon_event_sets_info(c->opened, index, &library) == 0)
      timeout = library.timeout_left_ns;
    info->set_timeout.tv_sec = (time_t)(timeout / 1000000000u);
    info->set_timeout.tv_nsec = (long)(timeout % 1000000000u);
    if (c->opened != NULL) perfmon_event_sets_read_set(c->opened, index);
    uint64_t runs, active, switch_pmds;
    pfm2_loaded_info(c, index, &runs, &active, &switch_pmds);
    info->set_runs = runs;
    info->set_switch_pmds[0] = switch_pmds;
    info->set_act_duration.tv_sec = (time_t)(active / 1000000000u);
    info->set_act_duration.tv_nsec = (long)(active % 1000000000u);
  }
  return pfm2_leave(&guard, 0);
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
  pfm2_unload(c);
  for (context** link = &pfm2_contexts; *link != NULL; link = &(*link)->next_context)
    if (*link == c) {
      *link = c->next_context;
      break;
    }
  close(c->queue);
  free_buffer(c);
  free(c->sets);
  free(c);
  pfm2_leave(&guard, 0);
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
    pfm2_leave(&guard, pfm2_fail(EINVAL, "%s", wrong));
    return MAP_FAILED;
  }
  void* mapping = mmap(address, length, PROT_READ, flags, c->buffer_file, 0);
  if (mapping != MAP_FAILED) c->program_mapping = mapping;
  pfm2_leave(&guard, 0);
  return mapping;
}

void pfm2_context_unmapped(void* address) {
  int ours = 0; /* most munmaps are not of a buffer: those take no lock */
  for (context* c = pfm2_contexts; c != NULL && !ours; c = c->next_context) ours = c->program_mapping == address;
  if (!ours) return;
  call_guard guard;
  pfm2_enter(&guard);
  for (context* c = pfm2_contexts; c != NULL; c = c->next_context)
    if (c->program_mapping == address) c->program_mapping = NULL;
  pfm2_leave(&guard, 0);
}
