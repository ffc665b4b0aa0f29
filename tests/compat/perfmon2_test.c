/* SPDX-License-Identifier: Apache-2.0 */
/* libperfmon2 as a perfmon2 program uses it (C11), exact on tracepoints: the spec's session
 * sequence on the calling thread, 64-bit PMDs with offsets, per-element errors, another thread
 * (and its PFM_MSG_END), one CPU system-wide, overflow messages with pfm_restart and long resets,
 * randomized resets, short resets, O_ASYNC without messages, perfmonctl and close. Event sets, the
 * sampling format and notifications are perfmon2_sets_test.c's. */
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

static void test_config_and_registers(void) {
  pfarg_config_t config;
  CHECK(pfm_get_config(&config) == 0);
  CHECK(PFM_VERSION_MAJOR(config.cf_version) == 2);
  CHECK((config.cf_impl_pmcs[0] >> GETPPID_PMC) == 0xffffffffu); /* the 32 virtual pairs */
  CHECK(config.cf_sys_gid == PFM_GROUP_ANY && config.cf_thread_gid == PFM_GROUP_ANY);
  CHECK(config.cf_counter_width >= 32);
  pfarg_config_t via_ctl;
  CHECK(perfmonctl(0, PFM_GET_CONFIG, &via_ctl, 1) == 0 && via_ctl.cf_version == config.cf_version);
  CHECK(perfmonctl(0, PFM_GET_CONFIG, &via_ctl, 2) == -1 && errno == EINVAL);

  pfarg_pmcinfo_t info[2];
  memset(info, 0, sizeof info);
  info[0].reg_num = GETPPID_PMC;
  info[1].reg_num = PFM_FIRST_VIRTUAL_PMC + PFM_VIRTUAL_PMCS; /* past the last */
  CHECK(pfm_getinfo_pmcs(info, 2) == -1 && errno == EINVAL);
  CHECK(info[0].reg_type == PFM_REG_TYPE_VIRTUAL && !PFM_REG_HAS_ERROR(info[0].reg_flags));
  CHECK(info[0].reg_def_value == 0 && info[0].reg_index == PFM_REG_IDX_NONE);
  CHECK(PFM_REG_HAS_ERROR(info[1].reg_flags) && (info[1].reg_flags & PFM_REG_RETFL_EINVAL));
  pfarg_pmdinfo_t pmd_info;
  memset(&pmd_info, 0, sizeof pmd_info);
  pmd_info.reg_num = GETPPID_PMC;
  CHECK(pfm_getinfo_pmds(&pmd_info, 1) == 0 && pmd_info.reg_type == PFM_REG_TYPE_VIRTUAL);

  uint64_t value = 0;
  CHECK(pfm_virtual_pmc_value("page-faults", &value) == 0 && value == PFM_VIRTUAL_EVENT(1, 2));
  CHECK(pfm_virtual_pmc_value("no-such-event", &value) == -1 && errno == ENOENT);
  CHECK(strstr(pfm_strerror_detail(), "no-such-event") != NULL);

  /* Only root changes the configuration; the groups it sets are checked as contexts are made. */
  if (geteuid() == 0) {
    pfarg_config_t restricted = config;
    restricted.cf_thread_gid = getegid() + 1000;
    CHECK(pfm_set_config(&restricted) == 0);
    pfarg_ctx_t ctx;
    memset(&ctx, 0, sizeof ctx);
    CHECK(pfm_create_context(&ctx, 1) == -1 && errno == EPERM);
    CHECK(pfm_set_config(&config) == 0);
  }
}

/* §2.3.6: create, program, start, run, stop, read, destroy; PMDs are 64-bit counters that go on
 * from the value written, across start and stop, load and unload. */
static void test_self_monitoring(void) {
  const int fd = new_context(0);
  if (fd < 0 || program(fd, 0, GETPPID_PMC, 0, 1000, 0, 0) != 0 || load_self(fd, 0) != 0) {
    ++failures;
    return;
  }
  CHECK(read_pmd(fd, 0, GETPPID_PMC) == 1000);
  CHECK(pfm_start(fd, NULL) == 0);
  call_getppid(500);
  CHECK(pfm_stop(fd) == 0);
  call_getppid(7); /* stopped: not counted */
  CHECK(read_pmd(fd, 0, GETPPID_PMC) == 1500);
  CHECK(pfm_start(fd, NULL) == 0);
  call_getppid(100);
  CHECK(pfm_stop(fd) == 0);
  CHECK(read_pmd(fd, 0, GETPPID_PMC) == 1600);
  /* A write while loaded sets the counter where it stands. */
  pfarg_pmd_t pmd;
  memset(&pmd, 0, sizeof pmd);
  pmd.reg_num = GETPPID_PMC;
  pmd.reg_value = 5;
  CHECK(pfm_write_pmds(fd, &pmd, 1) == 0);
  CHECK(pfm_start(fd, NULL) == 0);
  call_getppid(20);
  CHECK(pfm_stop(fd) == 0);
  CHECK(read_pmd(fd, 0, GETPPID_PMC) == 25);
  CHECK(pfm_unload_context(fd) == 0);
  CHECK(read_pmd(fd, 0, GETPPID_PMC) == 25); /* detached: the saved value */
  CHECK(pfm_start(fd, NULL) == -1 && errno == EBUSY);
  /* Loaded again, it counts on from there. */
  CHECK(load_self(fd, 0) == 0 && pfm_start(fd, NULL) == 0);
  call_getppid(10);
  CHECK(pfm_stop(fd) == 0 && read_pmd(fd, 0, GETPPID_PMC) == 35);
  /* One context per thread. */
  const int second = new_context(0);
  pfarg_load_t load = {gettid(), 0};
  CHECK(pfm_load_context(second, &load) == -1 && errno == EBUSY);
  close(second);
  /* close() destroys the context: its descriptor is no context any more. */
  CHECK(close(fd) == 0);
  CHECK(pfm_start(fd, NULL) == -1 && errno == EBADF);
  /* So does a dup2() over it, which libperfmon2 does not see: the number's new file is libc's. */
  const int replaced = new_context(0);
  int pipe_ends[2];
  CHECK(pipe(pipe_ends) == 0 && write(pipe_ends[1], "x", 1) == 1);
  CHECK(dup2(pipe_ends[0], replaced) == replaced);
  char byte = 0;
  CHECK(read(replaced, &byte, 1) == 1 && byte == 'x'); /* not a context's EINVAL for a short read */
  CHECK(pfm_start(replaced, NULL) == -1 && errno == EBADF);
  close(replaced);
  close(pipe_ends[0]);
  close(pipe_ends[1]);
}

/* The command stops at the first bad element, says which in reg_flags, and keeps the ones before. */
static void test_element_errors(void) {
  const int fd = new_context(0);
  pfarg_pmc_t pmcs[3];
  memset(pmcs, 0, sizeof pmcs);
  pmcs[0].reg_num = GETPPID_PMC;
  pmcs[0].reg_value = getppid_value;
  pmcs[1].reg_num = 63 + 1; /* no such register */
  pmcs[2].reg_num = SECOND_PMC;
  CHECK(pfm_write_pmcs(fd, pmcs, 3) == -1 && errno == EINVAL);
  CHECK(!PFM_REG_HAS_ERROR(pmcs[0].reg_flags) && (pmcs[1].reg_flags & PFM_REG_RETFL_NOTAVAIL));
  CHECK(!PFM_REG_HAS_ERROR(pmcs[2].reg_flags));
  pmcs[1].reg_num = SECOND_PMC;
  pmcs[1].reg_flags = 0;
  pmcs[1].reg_set = 9; /* no such set */
  CHECK(pfm_write_pmcs(fd, pmcs, 2) == -1 && errno == EINVAL && (pmcs[1].reg_flags & PFM_REG_RETFL_NOSET));
  pmcs[1].reg_set = 0;
  pmcs[1].reg_flags = 0;
  pmcs[1].reg_value = PFM_VIRTUAL_EVENT(9, 1); /* no such type */
  CHECK(pfm_write_pmcs(fd, pmcs, 2) == -1 && errno == EINVAL && (pmcs[1].reg_flags & PFM_REG_RETFL_EINVAL));
  pfarg_pmd_t pmd;
  memset(&pmd, 0, sizeof pmd);
  pmd.reg_num = 64;
  CHECK(pfm_read_pmds(fd, &pmd, 1) == -1 && errno == EINVAL && (pmd.reg_flags & PFM_REG_RETFL_NOTAVAIL));
  /* The first element was written: it counts. */
  CHECK(load_self(fd, 0) == 0 && pfm_start(fd, NULL) == 0);
  call_getppid(42);
  CHECK(pfm_stop(fd) == 0 && read_pmd(fd, 0, GETPPID_PMC) == 42);
  char small[8]; /* less than a message (§3.3.3) */
  CHECK(read(fd, small, sizeof small) == -1 && errno == EINVAL);
  close(fd);
  pfarg_ctx_t bad;
  memset(&bad, 0, sizeof bad);
  bad.ctx_flags = 0x4000;
  CHECK(pfm_create_context(&bad, 1) == -1 && errno == EINVAL);
  CHECK(pfm_start(12345, NULL) == -1 && errno == EBADF);
}

/* ---- Another thread: counted from outside, and PFM_MSG_END when it exits ----------------------- */

static int go[2];
static pid_t worker_tid;
static pthread_mutex_t ready_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t ready = PTHREAD_COND_INITIALIZER;

static void* worker(void* argument) {
  (void)argument;
  pthread_mutex_lock(&ready_lock);
  worker_tid = gettid();
  pthread_cond_signal(&ready);
  pthread_mutex_unlock(&ready_lock);
  char byte;
  if (read(go[0], &byte, 1) != 1) return NULL;
  call_getppid(300);
  return NULL;
}

static void test_other_thread(void) {
  const int fd = new_context(0);
  CHECK(pipe(go) == 0);
  pthread_t thread;
  pthread_create(&thread, NULL, worker, NULL);
  pthread_mutex_lock(&ready_lock);
  while (worker_tid == 0) pthread_cond_wait(&ready, &ready_lock);
  pthread_mutex_unlock(&ready_lock);
  CHECK(program(fd, 0, GETPPID_PMC, 0, 0, 0, 0) == 0);
  pfarg_load_t load = {worker_tid, 0};
  CHECK(pfm_load_context(fd, &load) == 0);
  CHECK(pfm_start(fd, NULL) == 0);
  CHECK(write(go[1], "g", 1) == 1);
  call_getppid(50); /* the controlling thread's calls are not the worker's */
  /* The end message, read as the spec reads messages (§3.3.3); poll says it is there. */
  struct pollfd wait = {fd, POLLIN, 0};
  const int readable = poll(&wait, 1, 10000) == 1 && (wait.revents & POLLIN);
  CHECK(readable);
  pfm_msg_t message;
  CHECK(readable && read(fd, &message, sizeof message) == (ssize_t)sizeof message);
  CHECK(readable && message.msg_type == PFM_MSG_END);
  CHECK(read_pmd(fd, 0, GETPPID_PMC) == 300); /* detached, its state saved */
  CHECK(pfm_unload_context(fd) == -1 && errno == EBUSY);
  pthread_join(thread, NULL);
  close(fd);
  close(go[0]);
  close(go[1]);
}

/* ---- One CPU, system-wide (§3.1.7): the thread pins itself and loads ---------------------------- */

static void test_system_wide(void) {
  cpu_set_t saved;
  if (!run_on_cpu0(&saved, "system-wide")) return;
  const int fd = new_context(PFM_FL_SYSTEM_WIDE);
  CHECK(program(fd, 0, GETPPID_PMC, 0, 0, 0, 0) == 0);
  pfarg_load_t other = {getpid() + 1, 0};
  if (other.load_pid == gettid()) ++other.load_pid;
  CHECK(pfm_load_context(fd, &other) == -1 && errno == EINVAL); /* not the caller */
  CHECK(load_self(fd, 0) == 0);
  CHECK(pfm_start(fd, NULL) == 0);
  call_getppid(200);
  CHECK(pfm_stop(fd) == 0);
  const uint64_t counted = read_pmd(fd, 0, GETPPID_PMC);
  CHECK(counted >= 200 && counted < 300); /* every thread on CPU 0: ours, and rarely another's */
  /* One system-wide context per CPU. */
  const int second = new_context(PFM_FL_SYSTEM_WIDE);
  pfarg_load_t same_cpu = {gettid(), 0};
  CHECK(pfm_load_context(second, &same_cpu) == -1 && errno == EBUSY);
  close(second);
  close(fd);
  sched_setaffinity(0, sizeof saved, &saved);
}

/* ---- Overflows (§3.4): messages, masking, pfm_restart, resets ------------------------------------ */

static void test_overflow_messages(void) {
  const int fd = new_context(0);
  const uint64_t minus_100 = (uint64_t)0 - 100;
  CHECK(program(fd, 0, GETPPID_PMC, PFM_REGFL_OVFL_NOTIFY, minus_100, minus_100, 0) == 0);
  CHECK(program(fd, 0, SECOND_PMC, 0, 0, 0, 0) == 0);
  CHECK(load_self(fd, 0) == 0 && pfm_start(fd, NULL) == 0);
  int messages = 0, right = 0;
  for (int call = 1; call <= 1000; ++call) {
    call_getppid(1);
    pfm_msg_t message;
    if (!next_message(fd, &message)) continue;
    ++messages;
    right += message.msg_type == PFM_MSG_OVFL && message.pfm_ovfl_msg.msg_active_set == 0 &&
             message.pfm_ovfl_msg.msg_ovfl_pmds[0] == 1ULL << GETPPID_PMC && call % 100 == 0;
    /* Masked until the restart: no qualified event is counted. */
    call_getppid(3);
    CHECK(pfm_restart(fd) == 0);
  }
  CHECK(pfm_stop(fd) == 0);
  CHECK(messages == 10 && right == 10);
  CHECK(read_pmd(fd, 0, SECOND_PMC) == 1000);       /* the masked calls are not counted */
  CHECK(read_pmd(fd, 0, GETPPID_PMC) == minus_100); /* long reset after the last overflow */
  close(fd);
}

static void test_random_resets(void) {
  const int fd = new_context(0);
  const uint64_t minus_100 = (uint64_t)0 - 100;
  CHECK(program(fd, 0, GETPPID_PMC, PFM_REGFL_OVFL_NOTIFY | PFM_REGFL_RANDOM, minus_100, minus_100, 0) == 0);
  pfarg_pmd_t pmd;
  memset(&pmd, 0, sizeof pmd);
  pmd.reg_num = GETPPID_PMC;
  pmd.reg_value = minus_100;
  pmd.reg_long_reset = minus_100;
  pmd.reg_random_mask = 0x3f;
  pmd.reg_random_seed = 42;
  CHECK(pfm_write_pmds(fd, &pmd, 1) == 0);
  CHECK(load_self(fd, 0) == 0 && pfm_start(fd, NULL) == 0);
  int messages = 0, in_range = 0, calls_since = 0, periods_right = 0;
  uint64_t period = 100;
  for (int call = 0; call < 3000; ++call) {
    call_getppid(1);
    ++calls_since;
    pfm_msg_t message;
    if (!next_message(fd, &message)) continue;
    ++messages;
    periods_right += (uint64_t)calls_since == period;
    CHECK(pfm_restart(fd) == 0);
    pfarg_pmd_t now;
    memset(&now, 0, sizeof now);
    now.reg_num = GETPPID_PMC;
    CHECK(pfm_read_pmds(fd, &now, 1) == 0);
    period = (uint64_t)0 - now.reg_last_reset_val;
    in_range += period > 100 - 64 && period <= 100 && now.reg_value == now.reg_last_reset_val;
    calls_since = 0;
  }
  CHECK(pfm_stop(fd) == 0);
  CHECK(messages >= 30 && messages == in_range && messages == periods_right);
  close(fd);
}

/* Without PFM_REGFL_OVFL_NOTIFY an overflow reloads the short reset value and counting goes on. */
static void test_short_resets(void) {
  const int fd = new_context(0);
  CHECK(program(fd, 0, GETPPID_PMC, 0, (uint64_t)0 - 100, 0, (uint64_t)0 - 50) == 0);
  CHECK(load_self(fd, 0) == 0 && pfm_start(fd, NULL) == 0);
  call_getppid(1000); /* overflows at 100, 150, ..., 1000 */
  CHECK(pfm_stop(fd) == 0);
  CHECK(read_pmd(fd, 0, GETPPID_PMC) == (uint64_t)0 - 50);
  pfm_msg_t message;
  CHECK(!next_message(fd, &message));
  close(fd);
}

/* PFM_FL_OVFL_NO_MSG: the O_ASYNC signal alone (§3.3.7), and a restart all the same. */
static volatile sig_atomic_t signals, signal_fd;
static void on_signal(int sig, siginfo_t* info, void* context) {
  (void)sig;
  (void)context;
  ++signals;
  signal_fd = info->si_fd;
}

static void test_no_message_signals(void) {
  const int fd = new_context(PFM_FL_OVFL_NO_MSG);
  struct sigaction action;
  memset(&action, 0, sizeof action);
  action.sa_sigaction = on_signal;
  action.sa_flags = SA_SIGINFO;
  sigaction(SIGUSR1, &action, NULL);
  struct f_owner_ex owner = {F_OWNER_TID, gettid()};
  CHECK(fcntl(fd, F_SETOWN_EX, &owner) == 0 && fcntl(fd, F_SETSIG, SIGUSR1) == 0);
  CHECK(fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_ASYNC) == 0);
  CHECK(program(fd, 0, GETPPID_PMC, PFM_REGFL_OVFL_NOTIFY, (uint64_t)0 - 100, (uint64_t)0 - 100, 0) == 0);
  CHECK(load_self(fd, 0) == 0 && pfm_start(fd, NULL) == 0);
  int restarts = 0;
  for (int call = 0; call < 500; ++call) {
    call_getppid(1);
    if (signals > restarts) {
      CHECK(pfm_restart(fd) == 0);
      ++restarts;
    }
  }
  CHECK(pfm_stop(fd) == 0);
  CHECK(signals == 5 && restarts == 5 && signal_fd == fd);
  pfm_msg_t message;
  CHECK(!next_message(fd, &message));
  close(fd);
}

int main(void) {
  if (pfm_virtual_pmc_value("syscalls:sys_enter_getppid", &getppid_value) != 0) {
    printf("skipped: %s\n", pfm_strerror_detail());
    return 0;
  }
  test_config_and_registers();
  test_self_monitoring();
  test_element_errors();
  test_other_thread();
  test_system_wide();
  test_overflow_messages();
  test_random_resets();
  test_short_resets();
  test_no_message_signals();
  return checks_result();
}
