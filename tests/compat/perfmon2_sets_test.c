/* SPDX-License-Identifier: Apache-2.0 */
/* libperfmon2's event sets and sampling (C11), exact on tracepoints: sets switched on overflows
 * and on a timeout, the default sampling format mapped with mmap (notifying and saturating),
 * notifications of another thread (blocking it until pfm_restart), system-wide notifications,
 * a full signal queue. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <perfmon/compat/perfmon2.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../helpers/c_checks.h"
#include "../helpers/perfmon2_program.h"
#include "../helpers/perfmon2_samples.h"

/* ---- Event sets (§3.1.10 - 3.1.12) ------------------------------------------------------------- */

static void test_event_sets(void) {
  const int fd = new_context(0);
  pfarg_setdesc_t sets[2];
  memset(sets, 0, sizeof sets);
  sets[0].set_id = 5;
  sets[1].set_id = 3;
  CHECK(pfm_create_evtsets(fd, sets, 2) == 0);
  pfarg_setinfo_t info[3];
  memset(info, 0, sizeof info);
  info[0].set_id = 0;
  info[1].set_id = 3;
  info[2].set_id = 5;
  CHECK(pfm_getinfo_evtsets(fd, info, 3) == 0);
  CHECK(info[0].set_id_next == 3 && info[1].set_id_next == 5 && info[2].set_id_next == 0); /* round-robin by id */
  /* Each set has its own registers: set 5 counts, set 0 does not. */
  CHECK(program(fd, 5, GETPPID_PMC, 0, 0, 0, 0) == 0);
  CHECK(load_self(fd, 5) == 0 && pfm_start(fd, NULL) == 0);
  call_getppid(77);
  CHECK(pfm_stop(fd) == 0);
  CHECK(read_pmd(fd, 5, GETPPID_PMC) == 77 && read_pmd(fd, 0, GETPPID_PMC) == 0);
  memset(info, 0, sizeof info);
  info[0].set_id = 5;
  CHECK(pfm_getinfo_evtsets(fd, info, 1) == 0 && info[0].set_runs == 1);
  /* Sets change only while unloaded; set 0 stays. */
  CHECK(pfm_create_evtsets(fd, sets, 1) == -1 && errno == EBUSY);
  CHECK(pfm_unload_context(fd) == 0);
  pfarg_setdesc_t zero;
  memset(&zero, 0, sizeof zero);
  CHECK(pfm_delete_evtsets(fd, &zero, 1) == -1 && errno == EINVAL && PFM_SET_HAS_ERROR(zero.set_flags));
  CHECK(pfm_delete_evtsets(fd, &sets[1], 1) == 0);
  memset(info, 0, sizeof info);
  info[0].set_id = 3;
  CHECK(pfm_getinfo_evtsets(fd, info, 1) == -1 && errno == EINVAL && (info[0].set_flags & PFM_SET_RETFL_NOSET));
  /* An explicit next. */
  sets[0].set_flags = PFM_SETFL_EXPL_NEXT;
  sets[0].set_id_next = 5;
  CHECK(pfm_create_evtsets(fd, sets, 1) == 0);
  memset(info, 0, sizeof info);
  info[0].set_id = 5;
  CHECK(pfm_getinfo_evtsets(fd, info, 1) == 0 && info[0].set_id_next == 5 && info[0].set_flags == PFM_SETFL_EXPL_NEXT);
  close(fd);
}

/* Sets 0 and 1, switching as `flags` say (every `timeout_ns` with PFM_SETFL_TIME_SWITCH), as
 * pfm_create_evtsets leaves their descriptors in `sets`. */
static int create_sets_0_and_1(int fd, uint32_t flags, long timeout_ns, pfarg_setdesc_t sets[2]) {
  memset(sets, 0, 2 * sizeof *sets);
  for (uint16_t set = 0; set < 2; ++set) {
    sets[set].set_id = set;
    sets[set].set_flags = flags;
    sets[set].set_timeout.tv_nsec = timeout_ns;
  }
  return pfm_create_evtsets(fd, sets, 2);
}

/* pfm_getinfo_evtsets of sets 0 and 1. */
static int info_of_sets_0_and_1(int fd, pfarg_setinfo_t info[2]) {
  memset(info, 0, 2 * sizeof *info);
  info[1].set_id = 1;
  return pfm_getinfo_evtsets(fd, info, 2);
}

/* Overflow switching (§3.7.6), exact: set 0 gives way after 100 calls, set 1 after 50, each
 * counting the calls of its turns on another PMD. 1,000 calls: seven turns of set 0, six of set 1. */
static void test_overflow_switching(void) {
  const int fd = new_context(0);
  pfarg_setdesc_t sets[2];
  CHECK(create_sets_0_and_1(fd, PFM_SETFL_OVFL_SWITCH, 0, sets) == 0);
  for (uint16_t set = 0; set < 2; ++set) {
    const uint64_t turn = set == 0 ? 100 : 50;
    CHECK(program(fd, set, GETPPID_PMC + set, 0, (uint64_t)0 - turn, 0, (uint64_t)0 - turn) == 0);
    CHECK(program(fd, set, 40 + set, 0, 0, 0, 0) == 0);
    pfarg_pmd_t trigger;
    memset(&trigger, 0, sizeof trigger);
    trigger.reg_num = (uint16_t)(GETPPID_PMC + set);
    trigger.reg_set = set;
    trigger.reg_value = trigger.reg_short_reset = (uint64_t)0 - turn;
    trigger.reg_ovflsw_thres = 1;
    CHECK(pfm_write_pmds(fd, &trigger, 1) == 0);
  }
  CHECK(load_self(fd, 0) == 0 && pfm_start(fd, NULL) == 0);
  call_getppid(1000);
  CHECK(pfm_stop(fd) == 0);
  CHECK(read_pmd(fd, 0, 40) == 700 && read_pmd(fd, 1, 41) == 300);
  pfarg_setinfo_t info[2];
  CHECK(info_of_sets_0_and_1(fd, info) == 0);
  CHECK(info[0].set_runs == 7 && info[1].set_runs == 7); /* set 1 is on the PMU at the end */
  CHECK(info[0].set_switch_pmds[0] == 1ULL << GETPPID_PMC && info[1].set_switch_pmds[0] == 1ULL << SECOND_PMC);
  close(fd);
}

/* A set without any PMC in use still takes its turn: the calls made while it is on count nowhere. */
static void test_an_empty_set_takes_its_turn(void) {
  const int fd = new_context(0);
  pfarg_setdesc_t sets[2];
  CHECK(create_sets_0_and_1(fd, PFM_SETFL_TIME_SWITCH, 1000000, sets) == 0);
  CHECK(program(fd, 0, GETPPID_PMC, 0, 0, 0, 0) == 0);
  CHECK(load_self(fd, 0) == 0 && pfm_start(fd, NULL) == 0);
  const int calls = 300000;
  call_getppid(calls);
  CHECK(pfm_stop(fd) == 0);
  const uint64_t counted = read_pmd(fd, 0, GETPPID_PMC);
  CHECK(counted > 0 && counted < (uint64_t)calls);
  pfarg_setinfo_t info[2];
  CHECK(info_of_sets_0_and_1(fd, info) == 0 && info[0].set_runs >= 2 && info[1].set_runs >= 1);
  close(fd);
}

/* Time switching: two sets take turns every millisecond of the thread's CPU time; every call is
 * counted by exactly one of them. */
static void test_time_switching(void) {
  const int fd = new_context(0);
  pfarg_setdesc_t sets[2];
  CHECK(create_sets_0_and_1(fd, PFM_SETFL_TIME_SWITCH, 1000000, sets) == 0);
  CHECK(sets[0].set_timeout.tv_sec == 0 && sets[0].set_timeout.tv_nsec == 1000000); /* effective */
  CHECK(program(fd, 0, GETPPID_PMC, 0, 0, 0, 0) == 0 && program(fd, 1, GETPPID_PMC, 0, 0, 0, 0) == 0);
  CHECK(load_self(fd, 0) == 0 && pfm_start(fd, NULL) == 0);
  const int calls = 300000;
  call_getppid(calls);
  CHECK(pfm_stop(fd) == 0);
  const uint64_t first = read_pmd(fd, 0, GETPPID_PMC), second = read_pmd(fd, 1, GETPPID_PMC);
  CHECK(first + second == (uint64_t)calls && first > 0 && second > 0);
  pfarg_setinfo_t info[2];
  CHECK(info_of_sets_0_and_1(fd, info) == 0);
  CHECK(info[0].set_runs >= 2 && info[1].set_runs >= 2);
  CHECK(info[0].set_act_duration.tv_nsec > 0 || info[0].set_act_duration.tv_sec > 0);
  /* Loaded, what is left of the timeout; unloaded, the effective timeout (a load starts it anew). */
  CHECK(info[0].set_timeout.tv_sec == 0 && info[0].set_timeout.tv_nsec <= 1000000);
  CHECK(info[1].set_timeout.tv_sec == 0 && info[1].set_timeout.tv_nsec <= 1000000);
  CHECK(info[0].set_timeout.tv_nsec < 1000000 || info[1].set_timeout.tv_nsec < 1000000);
  CHECK(pfm_unload_context(fd) == 0 && info_of_sets_0_and_1(fd, info) == 0);
  CHECK(info[0].set_timeout.tv_nsec == 1000000 && info[1].set_timeout.tv_nsec == 1000000);
  printf("time switching: %llu and %llu calls, %llu and %llu runs\n", (unsigned long long)first,
         (unsigned long long)second, (unsigned long long)info[0].set_runs, (unsigned long long)info[1].set_runs);
  close(fd);
}

/* ---- The default sampling format (§3.6) --------------------------------------------------------- */

typedef struct {
  pfarg_ctx_t ctx;
  pfm_default_smpl_arg_t arg;
} sampling_context;

static int new_sampling_context(size_t bytes, size_t* mapped_size) {
  sampling_context request;
  memset(&request, 0, sizeof request);
  const pfm_uuid_t uuid = PFM_DEFAULT_SMPL_UUID;
  memcpy(request.ctx.ctx_smpl_buf_id, uuid, sizeof uuid);
  request.arg.buf_size = bytes;
  if (pfm_create_context(&request.ctx, 1) != 0) {
    fprintf(stderr, "sampling context: %s (%s)\n", strerror(errno), pfm_strerror_detail());
    return -1;
  }
  *mapped_size = request.ctx.ctx_smpl_buf_size;
  return request.ctx.ctx_fd;
}

/* A sampling context of `bytes` with its buffer mapped at *header; -1 (a failure counted) if not. */
static int mapped_sampling_context(size_t bytes, const pfm_default_smpl_hdr_t** header) {
  size_t size = 0;
  const int fd = new_sampling_context(bytes, &size);
  *header = fd < 0 ? MAP_FAILED : mmap(NULL, size, PROT_READ, MAP_SHARED, fd, 0);
  CHECK(*header != MAP_FAILED);
  return *header == MAP_FAILED ? -1 : fd;
}

/* PMC32 samples every 10th getppid call with PMD33 (all calls) in each sample's body. A 4096-byte
 * buffer holds 79 samples of 48 bytes before the post check (room for an entry and all 32 PMDs)
 * declares it full: 1,000 samples in 10,000 calls give 12 notifications, 52 samples left. */
static void test_default_format(void) {
  size_t size = 0;
  const int fd = new_sampling_context(4096, &size);
  if (fd < 0) {
    ++failures;
    return;
  }
  CHECK(size == 4096);
  /* The spec's mapping rules (§3.5.4). */
  CHECK(mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0) == MAP_FAILED && errno == EINVAL);
  CHECK(mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0) == MAP_FAILED && errno == EINVAL);
  CHECK(mmap(NULL, size * 2, PROT_READ, MAP_SHARED, fd, 0) == MAP_FAILED && errno == EINVAL);
  const void* buffer = mmap(NULL, size, PROT_READ, MAP_SHARED, fd, 0);
  CHECK(buffer != MAP_FAILED);
  CHECK(mmap(NULL, size, PROT_READ, MAP_SHARED, fd, 0) == MAP_FAILED && errno == EINVAL); /* once */
  if (buffer == MAP_FAILED) return;
  const pfm_default_smpl_hdr_t* header = buffer;
  CHECK(header->hdr_count == 0 && header->hdr_buf_size == 4096 && header->hdr_version == PFM_DEFAULT_SMPL_VERSION);
  CHECK(header->hdr_cur_offs == sizeof *header);

  pfarg_pmc_t pmc;
  memset(&pmc, 0, sizeof pmc);
  pmc.reg_num = GETPPID_PMC;
  pmc.reg_flags = PFM_REGFL_OVFL_NOTIFY;
  pmc.reg_value = getppid_value;
  pmc.reg_smpl_pmds[0] = 1ULL << SECOND_PMC;
  CHECK(pfm_write_pmcs(fd, &pmc, 1) == 0);
  CHECK(program(fd, 0, SECOND_PMC, 0, 0, 0, 0) == 0);
  pfarg_pmd_t pmd;
  memset(&pmd, 0, sizeof pmd);
  pmd.reg_num = GETPPID_PMC;
  pmd.reg_value = pmd.reg_short_reset = pmd.reg_long_reset = (uint64_t)0 - 10;
  CHECK(pfm_write_pmds(fd, &pmd, 1) == 0);
  CHECK(load_self(fd, 0) == 0 && pfm_start(fd, NULL) == 0);
  int messages = 0, full_buffers = 0, samples_right = 0, samples = 0;
  for (int call = 1; call <= 10000; ++call) {
    call_getppid(1);
    pfm_msg_t message;
    if (!next_message(fd, &message)) continue;
    ++messages;
    full_buffers +=
        message.msg_type == PFM_MSG_OVFL && header->hdr_count == 79 && header->hdr_overflows == (uint64_t)messages;
    /* Parse the samples from the top (§3.6.4): an entry, then PMD33's value. */
    const char* at = first_sample(header);
    for (size_t k = 0; k < header->hdr_count; ++k) {
      pfm_default_smpl_entry_t entry;
      uint64_t body;
      next_sample(&at, &entry, &body, 1);
      ++samples;
      samples_right += entry.ovfl_pmd == GETPPID_PMC && entry.set == 0 && entry.tid == gettid() &&
                       entry.pid == getpid() && entry.ip != 0 && entry.last_reset_val == (uint64_t)0 - 10 &&
                       body == (uint64_t)samples * 10;
    }
    CHECK(pfm_restart(fd) == 0);
    CHECK(header->hdr_count == 0);
  }
  CHECK(pfm_stop(fd) == 0);
  CHECK(messages == 12 && full_buffers == 12 && samples == 948 && samples_right == 948);
  CHECK(header->hdr_count == 52);
  CHECK(read_pmd(fd, 0, SECOND_PMC) == 10000); /* nothing lost while masked */
  CHECK(munmap((void*)buffer, size) == 0);
  CHECK(mmap(NULL, size, PROT_READ, MAP_SHARED, fd, 0) != MAP_FAILED); /* mapped again after munmap */
  close(fd);
}

/* A buffer whose PMC does not notify saturates: it fills and monitoring stops, silently. */
static void test_saturation(void) {
  const pfm_default_smpl_hdr_t* header;
  const int fd = mapped_sampling_context(4096, &header);
  if (fd < 0) return;
  CHECK(program(fd, 0, GETPPID_PMC, 0, (uint64_t)0 - 10, (uint64_t)0 - 10, (uint64_t)0 - 10) == 0);
  CHECK(program(fd, 0, SECOND_PMC, 0, 0, 0, 0) == 0);
  CHECK(load_self(fd, 0) == 0 && pfm_start(fd, NULL) == 0);
  call_getppid(5000);
  CHECK(pfm_stop(fd) == 0);
  /* No body: 40-byte samples; full after 95 (4096 - 40 - 95 * 40 < 296). */
  CHECK(header->hdr_count == 95 && header->hdr_overflows == 1);
  CHECK(read_pmd(fd, 0, SECOND_PMC) == 950); /* masked at the 95th sample */
  pfm_msg_t message;
  CHECK(!next_message(fd, &message));
  /* The restart empties the buffer and reloads the long reset value. */
  CHECK(pfm_restart(fd) == 0 && header->hdr_count == 0 && pfm_start(fd, NULL) == 0);
  call_getppid(100);
  CHECK(pfm_stop(fd) == 0 && header->hdr_count == 10);
  close(fd);
}

/* ---- Overflows of another thread and of a CPU: the library's overflow thread handles them ----- */

/* A thread that makes `calls` getppid calls each time it is handed a byte, and ends at 'q'. */
static int paced_go[2];
static pid_t paced_tid;
static int paced_calls;

static void* paced_worker(void* argument) {
  (void)argument;
  __atomic_store_n(&paced_tid, gettid(), __ATOMIC_RELEASE);
  char byte;
  while (read(paced_go[0], &byte, 1) == 1 && byte != 'q') call_getppid(paced_calls);
  return NULL;
}

static pthread_t start_paced(int calls) {
  paced_calls = calls;
  paced_tid = 0;
  CHECK(pipe(paced_go) == 0);
  pthread_t thread;
  pthread_create(&thread, NULL, paced_worker, NULL);
  while (__atomic_load_n(&paced_tid, __ATOMIC_ACQUIRE) == 0) sched_yield();
  return thread;
}

static void stop_paced(pthread_t thread) {
  CHECK(write(paced_go[1], "q", 1) == 1);
  pthread_join(thread, NULL);
  close(paced_go[0]);
  close(paced_go[1]);
}

/* The next message within 10 s: 1 and the message, or 0. */
static int wait_message(int fd, pfm_msg_t* message) {
  struct pollfd wait = {fd, POLLIN, 0};
  return poll(&wait, 1, 10000) == 1 && read(fd, message, sizeof *message) == (ssize_t)sizeof *message;
}

/* A monitoring thread restarts another after each notification (§3.4.3): the worker pauses after
 * every 100 calls, and each pause follows an overflow at its 100th call that masked monitoring. */
static void test_other_thread_notifications(void) {
  const pthread_t thread = start_paced(100);
  const int fd = new_context(0);
  const uint64_t minus_100 = (uint64_t)0 - 100;
  CHECK(program(fd, 0, GETPPID_PMC, PFM_REGFL_OVFL_NOTIFY, minus_100, minus_100, 0) == 0);
  CHECK(program(fd, 0, SECOND_PMC, 0, 0, 0, 0) == 0);
  pfarg_load_t load = {paced_tid, 0};
  CHECK(pfm_load_context(fd, &load) == 0 && pfm_start(fd, NULL) == 0);
  int right = 0;
  for (int round = 0; round < 3; ++round) {
    CHECK(write(paced_go[1], "g", 1) == 1);
    pfm_msg_t message;
    const int got = wait_message(fd, &message);
    right += got && message.msg_type == PFM_MSG_OVFL && message.pfm_ovfl_msg.msg_ovfl_pmds[0] == 1ULL << GETPPID_PMC &&
             read_pmd(fd, 0, GETPPID_PMC) == 0;
    CHECK(pfm_restart(fd) == 0);
    CHECK(read_pmd(fd, 0, GETPPID_PMC) == minus_100); /* the long reset */
  }
  CHECK(right == 3);
  CHECK(read_pmd(fd, 0, SECOND_PMC) == 300);
  stop_paced(thread);
  close(fd);
}

/* A thread that calls getppid until told to quit, counting its calls. */
static _Atomic long running_calls;
static _Atomic int running_quit;
static _Atomic pid_t running_tid;

static void* running_worker(void* argument) {
  (void)argument;
  atomic_store(&running_tid, gettid());
  while (!atomic_load(&running_quit)) {
    call_getppid(1);
    atomic_fetch_add(&running_calls, 1);
  }
  return NULL;
}

/* The system call thread `tid` of this process is in now (/proc: its number), or -1 when running. */
static long system_call_of(pid_t tid) {
  char path[64];
  snprintf(path, sizeof path, "/proc/self/task/%d/syscall", (int)tid);
  FILE* file = fopen(path, "re");
  long number = -1;
  if (file != NULL) {
    if (fscanf(file, "%ld", &number) != 1) number = -1;
    fclose(file);
  }
  return number;
}

/* PFM_FL_NOTIFY_BLOCK (§3.4.3): each notification blocks the monitored thread, a thread of this
 * process that never pauses by itself, until pfm_restart. Three rounds: the thread is found waiting
 * (in futex) with its call count still, and goes on after the restart. The caller cannot block
 * itself (table 3.2). */
static void test_notifications_block_the_thread(void) {
  const int refused = new_context(PFM_FL_NOTIFY_BLOCK);
  pfarg_load_t self = {gettid(), 0};
  CHECK(program(refused, 0, GETPPID_PMC, 0, 0, 0, 0) == 0);
  CHECK(pfm_load_context(refused, &self) == -1 && errno == EINVAL);
  close(refused);

  const int fd = new_context(PFM_FL_NOTIFY_BLOCK);
  const uint64_t minus_100 = (uint64_t)0 - 100;
  CHECK(program(fd, 0, GETPPID_PMC, PFM_REGFL_OVFL_NOTIFY, minus_100, minus_100, 0) == 0);
  pthread_t thread;
  atomic_store(&running_quit, 0);
  atomic_store(&running_tid, 0);
  pthread_create(&thread, NULL, running_worker, NULL);
  while (atomic_load(&running_tid) == 0) sched_yield();
  pfarg_load_t load = {atomic_load(&running_tid), 0};
  CHECK(pfm_load_context(fd, &load) == 0 && pfm_start(fd, NULL) == 0);
  int blocked = 0;
  long calls_before = 0;
  for (int round = 0; round < 3; ++round) {
    pfm_msg_t message;
    CHECK(wait_message(fd, &message) && message.msg_type == PFM_MSG_OVFL);
    int waiting = 0;
    for (int tries = 0; tries < 10000 && !waiting; ++tries) {
      waiting = system_call_of(load.load_pid) == SYS_futex;
      if (!waiting) usleep(1000);
    }
    const long calls = atomic_load(&running_calls);
    usleep(20000);
    /* 99: the block can come on the return from the 100th call, before the thread counts it (the
     * overflow thread ran while the worker waited for its CPU on a loaded machine). */
    blocked += waiting && atomic_load(&running_calls) == calls && calls >= calls_before + 99;
    calls_before = calls;
    CHECK(pfm_restart(fd) == 0);
  }
  CHECK(blocked == 3);
  CHECK(pfm_unload_context(fd) == 0); /* lets a thread blocked again go */
  atomic_store(&running_quit, 1);
  pthread_join(thread, NULL);
  close(fd);
}

/* The default format samples another thread (§3.6): a sample every 10th of its 300 calls, each
 * with the worker's ids and the address of its system call as the kernel saw them; the last ones
 * are in the buffer when PFM_MSG_END says the thread has gone. */
static void test_other_thread_samples(void) {
  const pfm_default_smpl_hdr_t* header;
  const int fd = mapped_sampling_context(4096, &header);
  if (fd < 0) return;
  const pthread_t thread = start_paced(300);
  const uint64_t minus_10 = (uint64_t)0 - 10;
  CHECK(program(fd, 0, GETPPID_PMC, 0, minus_10, minus_10, minus_10) == 0);
  pfarg_load_t load = {paced_tid, 0};
  const pid_t worker = paced_tid;
  CHECK(pfm_load_context(fd, &load) == 0 && pfm_start(fd, NULL) == 0);
  CHECK(write(paced_go[1], "g", 1) == 1);
  stop_paced(thread);
  pfm_msg_t message;
  CHECK(wait_message(fd, &message) && message.msg_type == PFM_MSG_END);
  CHECK(header->hdr_count == 30);
  int right = 0;
  const char* at = first_sample(header);
  for (size_t k = 0; k < header->hdr_count; ++k) {
    pfm_default_smpl_entry_t entry;
    next_sample(&at, &entry, NULL, 0);
    right += entry.tid == worker && entry.pid == getpid() && entry.ovfl_pmd == GETPPID_PMC &&
             entry.last_reset_val == minus_10 && entry.ip - (uintptr_t)syscall < 64;
  }
  CHECK(right == 30);
  CHECK(read_pmd(fd, 0, GETPPID_PMC) == minus_10); /* 300 calls, 30 short resets: nothing lost */
  close(fd);
}

/* Sets of another thread switch on its CPU time (the overflow thread switches them). */
static void test_other_thread_time_switching(void) {
  const int calls = 200000;
  const pthread_t thread = start_paced(calls);
  const int fd = new_context(0);
  pfarg_setdesc_t sets[2];
  CHECK(create_sets_0_and_1(fd, PFM_SETFL_TIME_SWITCH, 1000000, sets) == 0);
  CHECK(program(fd, 0, GETPPID_PMC, 0, 0, 0, 0) == 0 && program(fd, 1, GETPPID_PMC, 0, 0, 0, 0) == 0);
  pfarg_load_t load = {paced_tid, 0};
  CHECK(pfm_load_context(fd, &load) == 0 && pfm_start(fd, NULL) == 0);
  CHECK(write(paced_go[1], "g", 1) == 1);
  stop_paced(thread);
  pfm_msg_t message;
  CHECK(wait_message(fd, &message) && message.msg_type == PFM_MSG_END);
  const uint64_t first = read_pmd(fd, 0, GETPPID_PMC), second = read_pmd(fd, 1, GETPPID_PMC);
  /* A call made while the overflow thread switches is counted by neither. */
  CHECK(first + second <= (uint64_t)calls && first > (uint64_t)calls / 10 && second > (uint64_t)calls / 10);
  pfarg_setinfo_t info[2];
  CHECK(info_of_sets_0_and_1(fd, info) == 0 && info[0].set_runs >= 2 && info[1].set_runs >= 2);
  printf("another thread's time switching: %llu and %llu of %d calls, %llu and %llu runs\n", (unsigned long long)first,
         (unsigned long long)second, calls, (unsigned long long)info[0].set_runs, (unsigned long long)info[1].set_runs);
  close(fd);
}

/* A system-wide context's overflow notifies too (the thread that loaded it may sleep in poll). */
static void test_system_wide_notification(void) {
  cpu_set_t saved;
  if (!run_on_cpu0(&saved, "system-wide notification")) return;
  const int fd = new_context(PFM_FL_SYSTEM_WIDE);
  const uint64_t minus_100 = (uint64_t)0 - 100;
  CHECK(program(fd, 0, GETPPID_PMC, PFM_REGFL_OVFL_NOTIFY, minus_100, minus_100, 0) == 0);
  CHECK(load_self(fd, 0) == 0 && pfm_start(fd, NULL) == 0);
  call_getppid(100);
  pfm_msg_t message;
  CHECK(wait_message(fd, &message) && message.msg_type == PFM_MSG_OVFL &&
        message.pfm_ovfl_msg.msg_ovfl_pmds[0] == 1ULL << GETPPID_PMC);
  close(fd);
  sched_setaffinity(0, sizeof saved, &saved);
}

/* With the real-time signal queue full, the kernel sends SIGIO instead of the overflow signal (no fd
 * with it): the overflow thread then looks at every context. In a child whose RLIMIT_SIGPENDING
 * is 0, so that every overflow signal falls back to SIGIO, another thread's notifications, samples
 * and time switching work as with the signals. It runs first: the child must start its own overflow
 * thread. */
static void test_when_the_signal_queue_is_full(void) {
  const pid_t child = fork();
  if (child == 0) {
    const struct rlimit none = {0, 0};
    CHECK(setrlimit(RLIMIT_SIGPENDING, &none) == 0);
    sigset_t real_time;
    sigemptyset(&real_time);
    sigaddset(&real_time, SIGRTMIN);
    sigprocmask(SIG_BLOCK, &real_time, NULL);
    CHECK(sigqueue(getpid(), SIGRTMIN, (union sigval){0}) == -1 && errno == EAGAIN); /* the queue is full */
    test_other_thread_notifications();
    test_other_thread_samples();
    test_other_thread_time_switching();
    _exit(failures == 0 ? 0 : 1);
  }
  int status = -1;
  CHECK(child > 0 && waitpid(child, &status, 0) == child);
  CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

int main(void) {
  if (pfm_virtual_pmc_value("syscalls:sys_enter_getppid", &getppid_value) != 0) {
    printf("skipped: %s\n", pfm_strerror_detail());
    return 0;
  }
  test_when_the_signal_queue_is_full();
  test_event_sets();
  test_overflow_switching();
  test_time_switching();
  test_an_empty_set_takes_its_turn();
  test_default_format();
  test_saturation();
  test_other_thread_notifications();
  test_notifications_block_the_thread();
  test_other_thread_samples();
  test_other_thread_time_switching();
  test_system_wide_notification();
  return checks_result();
}
