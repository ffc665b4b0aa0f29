/* SPDX-License-Identifier: Apache-2.0 */
/* The C ABI from C11: exact counts of getppid through a session and a sampler, overflows of
 * another thread with their records, event sets with an overflow hook that holds, the errors and
 * their sentences, the version and the version 1 symbol, perfmon2's default-format buffer. Exits non-zero, saying what
 * failed, when anything is wrong. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "perfmon/perfmon.h"

#include "../helpers/c_checks.h"

static void count_sample(void* context, const perfmon_sample* sample) {
  size_t* count = context;
  if (sample->event == 0 && sample->tid == (uint32_t)syscall(SYS_gettid)) ++*count;
}

static uint64_t monotonic_ns(void) {
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec;
}

static int go[2];
static pid_t worker_tid;

static void* worker(void* argument) {
  (void)argument;
  worker_tid = (pid_t)syscall(SYS_gettid);
  char byte;
  if (read(go[0], &byte, 1) == 1) call_getppid(1000);
  return NULL;
}

/* Overflows of another thread: a signal to this thread for each, and a record of each with the
 * worker's tid and the address of its system call. */
static void test_overflows_of_another_thread(const perfmon_catalog* catalog) {
  const int signo = SIGRTMIN + 7;
  sigset_t blocked;
  sigemptyset(&blocked);
  sigaddset(&blocked, signo);
  sigprocmask(SIG_BLOCK, &blocked, NULL);
  CHECK(pipe(go) == 0);
  pthread_t thread;
  pthread_create(&thread, NULL, worker, NULL);
  while (__atomic_load_n(&worker_tid, __ATOMIC_ACQUIRE) == 0) sched_yield();
  const uint64_t periods[] = {100};
  perfmon_session_options options = {0};
  options.no_inherit = 1;
  options.overflow_periods = periods;
  options.overflow_period_count = 1;
  options.overflow_signal = signo;
  options.overflow_thread = (pid_t)syscall(SYS_gettid);
  options.overflow_records = 1;
  perfmon_target other = {PERFMON_TARGET_THREAD, worker_tid, NULL, 0};
  perfmon_session* session = NULL;
  CHECK(perfmon_session_open(catalog, "syscalls:sys_enter_getppid", &other, &options, &session) == 0);
  options.overflow_thread = 0; /* without a thread of ours to take them: refused */
  perfmon_session* refused = NULL;
  CHECK(perfmon_session_open(catalog, "syscalls:sys_enter_getppid", &other, &options, &refused) == EINVAL);
  CHECK(strstr(perfmon_last_error(), "overflow_thread") != NULL);
  const uint64_t before = monotonic_ns();
  CHECK(session == NULL || perfmon_session_start(session) == 0);
  CHECK(write(go[1], "g", 1) == 1);
  pthread_join(thread, NULL);
  const uint64_t after = monotonic_ns();
  if (session != NULL) {
    CHECK(perfmon_session_read(session) == 0);
    perfmon_value value;
    CHECK(perfmon_session_value(session, 0, &value) == 0 && value.raw == 1000);
    int signals = 0, records = 0, right = 0;
    siginfo_t info;
    struct timespec none = {0, 0};
    while (sigtimedwait(&blocked, &info, &none) == signo) {
      ++signals;
      perfmon_sample sample;
      while (perfmon_session_take_overflow(session, info.si_fd, &sample) == 0) {
        ++records;
        Dl_info where;
        right += sample.event == 0 && sample.tid == (uint32_t)worker_tid && sample.pid == (uint32_t)getpid() &&
                 sample.time >= before && sample.time <= after && dladdr((void*)(uintptr_t)sample.ip, &where) != 0 &&
                 where.dli_sname != NULL && strcmp(where.dli_sname, "syscall") == 0;
      }
    }
    CHECK(signals == 10 && records == 10 && right == 10);
    perfmon_sample sample;
    CHECK(perfmon_session_take_overflow(session, perfmon_session_fd(session, 0, 0), &sample) == ENOENT);
    perfmon_session_close(session);
  }
  close(go[0]);
  close(go[1]);
  sigprocmask(SIG_UNBLOCK, &blocked, NULL);
}

/* What the event sets' hook saw: the sets of its records, and which record holds. */
typedef struct {
  size_t sets[16];
  int count, hold_at;
  pid_t tid;
  int tids_right;
} hook_log;

static perfmon_overflow_action log_overflow(void* context, size_t set, const perfmon_sample* record) {
  hook_log* log = context;
  if (log->count < 16) log->sets[log->count] = set;
  log->tids_right += record->tid == (uint32_t)log->tid && record->event == 0 && record->ip != 0;
  return log->count++ == log->hold_at ? PERFMON_OVERFLOW_HOLD : PERFMON_OVERFLOW_CONTINUE;
}

/* Two sets of getppid, switched in this thread's handler: set 0 overflows every 10 calls and gives
 * way after 3, set 1 after 1 overflow of 10. The hook holds at set 0's 5th overflow (the 60th call:
 * set 0 30, set 1 10, set 0 20): the next 50 calls count nowhere, then the resume lets set 0 on for
 * 10 more calls, its turn's third overflow, which switches to set 1 for 10 and back to set 0 for 5. */
static void test_event_sets(const perfmon_catalog* catalog) {
  const perfmon_set_trigger every_3 = {0, 10, 3}, every_1 = {0, 10, 1};
  perfmon_set_definition sets[2];
  memset(sets, 0, sizeof sets);
  sets[0].id = 0;
  sets[0].events = "syscalls:sys_enter_getppid";
  sets[0].triggers = &every_3;
  sets[0].trigger_count = 1;
  sets[1].id = 4;
  sets[1].events = "syscalls:sys_enter_getppid,task-clock";
  sets[1].triggers = &every_1;
  sets[1].trigger_count = 1;
  hook_log log = {{0}, 0, 5, (pid_t)syscall(SYS_gettid), 0};
  perfmon_event_sets_options options = {0};
  options.no_inherit = 1;
  options.on_overflow = log_overflow;
  options.hook_context = &log;
  perfmon_target self = {PERFMON_TARGET_SELF, 0, NULL, 0};
  perfmon_event_sets* event_sets = NULL;
  CHECK(perfmon_event_sets_open(catalog, sets, 2, &self, &options, &event_sets) == 0);
  if (event_sets == NULL) return;
  CHECK(perfmon_event_sets_count(event_sets) == 2);
  CHECK(perfmon_event_sets_event_count(event_sets, 1) == 2);
  CHECK(perfmon_event_sets_fd(event_sets, 0, 0, 0) >= 0 && perfmon_event_sets_fd(event_sets, 0, 1, 0) == -1);
  CHECK(perfmon_event_sets_start(event_sets) == 0);
  call_getppid(70);
  CHECK(perfmon_event_sets_held(event_sets) == 1);
  call_getppid(40);
  CHECK(perfmon_event_sets_overflows_left(event_sets, 0, 0) == 1); /* c50 and c60 of this turn */
  CHECK(perfmon_event_sets_resume(event_sets) == 0);
  CHECK(perfmon_event_sets_held(event_sets) == 0);
  call_getppid(25);
  CHECK(perfmon_event_sets_stop(event_sets) == 0);
  CHECK(perfmon_event_sets_read(event_sets) == 0);
  perfmon_value value;
  CHECK(perfmon_event_sets_value(event_sets, 0, 0, &value) == 0 && value.raw == 30 + 20 + 10 + 5);
  CHECK(perfmon_event_sets_value(event_sets, 1, 0, &value) == 0 && value.raw == 10 + 10);
  CHECK(perfmon_event_sets_value(event_sets, 1, 2, &value) == EINVAL);
  CHECK(perfmon_event_sets_read_set(event_sets, 1) == 0 && perfmon_event_sets_read_set(event_sets, 2) == EINVAL);
  CHECK(perfmon_event_sets_switches(event_sets) == 4);
  CHECK(perfmon_event_sets_active(event_sets) == 0);
  perfmon_set_info info;
  CHECK(perfmon_event_sets_info(event_sets, 1, &info) == 0 && info.id == 4 && info.next == 0 && info.runs == 2);
  CHECK(info.last_switch_triggers == 1 && info.active_ns > 0);
  const size_t expected[] = {0, 0, 0, 1, 0, 0, 0, 1};
  CHECK(log.count == 8 && log.tids_right == 8);
  for (int i = 0; i < 8 && i < log.count; ++i) CHECK(log.sets[i] == expected[i]);
  /* A hold by the caller: nothing counts until the resume. */
  CHECK(perfmon_event_sets_start(event_sets) == 0);
  CHECK(perfmon_event_sets_hold(event_sets) == 0 && perfmon_event_sets_held(event_sets) == 1);
  call_getppid(3);
  CHECK(perfmon_event_sets_resume(event_sets) == 0);
  call_getppid(2);
  CHECK(perfmon_event_sets_stop(event_sets) == 0 && perfmon_event_sets_read(event_sets) == 0);
  CHECK(perfmon_event_sets_value(event_sets, 0, 0, &value) == 0 && value.raw == 30 + 20 + 10 + 5 + 2);
  /* A set's event controlled as a session's: the trigger samples, so it takes a period. */
  CHECK(perfmon_event_sets_set_period(event_sets, 0, 0, 10) == 0);
  CHECK(perfmon_event_sets_control_event(event_sets, 0, 1, PERFMON_EVENT_DISABLE) == EINVAL);
  CHECK(perfmon_event_sets_control_event(event_sets, 2, 0, PERFMON_EVENT_DISABLE) == EINVAL);
  perfmon_event_sets_close(event_sets);

  /* A set that cannot work is refused with its reason. */
  sets[1].timeout_ns = 1000000;
  CHECK(perfmon_event_sets_open(catalog, sets, 2, &self, &options, &event_sets) == EINVAL && event_sets == NULL);
  CHECK(strstr(perfmon_last_error(), "event set 4") != NULL);
}

/* A program built against version 1 calls perfmon_session_open@PERFMON_1, whose options end at
 * stop_after: what lies after them is never read. */
typedef int (*session_open_call)(const perfmon_catalog*, const char*, const perfmon_target*,
                                 const perfmon_session_options*, perfmon_session**);
static void test_version_1_symbol(const perfmon_catalog* catalog) {
  void* library = dlopen(NULL, RTLD_NOW);
  session_open_call open_v1 = (session_open_call)(uintptr_t)dlvsym(library, "perfmon_session_open", "PERFMON_1");
  session_open_call open_v2 = (session_open_call)(uintptr_t)dlvsym(library, "perfmon_session_open", "PERFMON_2");
  CHECK(open_v1 != NULL && open_v2 != NULL && open_v1 != open_v2);
  if (open_v1 == NULL || open_v2 == NULL) return;
  perfmon_session_options options;
  memset(&options, 0xff, sizeof options); /* what follows version 1's fields: garbage */
  memset(&options, 0, offsetof(perfmon_session_options, overflow_thread));
  options.user_space_reads = 1; /* with overflow_records, refused; version 1 has none */
  perfmon_target self = {PERFMON_TARGET_SELF, 0, NULL, 0};
  perfmon_session* session = NULL;
  CHECK(open_v1(catalog, "task-clock", &self, &options, &session) == 0);
  perfmon_session_close(session);
  session = NULL;
  CHECK(open_v2(catalog, "task-clock", &self, &options, &session) == EINVAL && session == NULL);
  dlclose(library);
}

int main(void) {
  require_getppid_tracepoint();
  CHECK(perfmon_api_version() == PERFMON_API_VERSION);
  CHECK(strlen(perfmon_version()) > 0);
  CHECK(strcmp(perfmon_last_error(), "") == 0);

  perfmon_catalog* catalog = perfmon_catalog_new();
  CHECK(catalog != NULL);
  CHECK(perfmon_catalog_check(catalog, "task-clock,{page-faults,syscalls:sys_enter_getppid}") == 0);
  CHECK(perfmon_catalog_check(catalog, "task-clok") == ENOENT);
  CHECK(strstr(perfmon_last_error(), "task-clock") != NULL); /* the nearest name is suggested */

  /* PAPI's presets as PAPI's table gives them for a CPU (PERF_CPUID stands for this one's id). */
  char native[64];
  CHECK(setenv("PERF_CPUID", "GenuineIntel-6-4E-3", 1) == 0); /* a Skylake */
  CHECK(perfmon_papi_preset_event("PAPI_L1_DCM", native, sizeof native) == 0 && strcmp(native, "L1D:REPLACEMENT") == 0);
  CHECK(perfmon_papi_preset_event("PAPI_L1_TCM", native, sizeof native) == EDOM); /* a sum of two */
  CHECK(strstr(perfmon_last_error(), "L1D:REPLACEMENT + L2_RQSTS:ALL_CODE_RD") != NULL);
  CHECK(perfmon_papi_preset_event("PAPI_NOPE", native, sizeof native) == ENOENT);
  CHECK(perfmon_papi_preset_event("PAPI_L1_DCM", native, 4) == 0 && strcmp(native, "L1D") == 0); /* cut to fit */
  /* Any preset as its events and the formula of their counts: a sum, a difference, one event. */
  perfmon_papi_preset* preset = NULL;
  CHECK(perfmon_papi_preset_open("PAPI_L1_TCM", &preset) == 0 && preset != NULL);
  CHECK(strcmp(perfmon_papi_preset_events(preset), "L1D:REPLACEMENT,L2_RQSTS:ALL_CODE_RD") == 0);
  CHECK(perfmon_papi_preset_event_count(preset) == 2);
  const double tcm_counts[] = {3000, 250};
  CHECK(perfmon_papi_preset_value(preset, tcm_counts) == 3250);
  perfmon_papi_preset_close(preset);
  CHECK(perfmon_papi_preset_open("PAPI_BR_UCN", &preset) == 0); /* all branches less the conditional */
  CHECK(strcmp(perfmon_papi_preset_events(preset), "BR_INST_RETIRED:ALL_BRANCHES,BR_INST_RETIRED:CONDITIONAL") == 0);
  const double ucn_counts[] = {1000, 800};
  CHECK(perfmon_papi_preset_value(preset, ucn_counts) == 200);
  perfmon_papi_preset_close(preset);
  CHECK(perfmon_papi_preset_open("PAPI_L1_DCM", &preset) == 0 && perfmon_papi_preset_event_count(preset) == 1);
  perfmon_papi_preset_close(preset);
  preset = NULL;
  CHECK(perfmon_papi_preset_open("PAPI_NOPE", &preset) == ENOENT && preset == NULL);
  CHECK(strstr(perfmon_last_error(), "PAPI_NOPE is not one of PAPI's presets for this CPU.") != NULL);
  /* likwid's own event set (a group of its EVENT:COUNTER pairs): perf's events in counter order. */
  perfmon_likwid_group* custom = NULL;
  CHECK(perfmon_likwid_group_open("INSTR_RETIRED_ANY:FIXC0,CPU_CLK_UNHALTED_CORE:FIXC1", &custom) == 0);
  CHECK(strcmp(perfmon_likwid_group_name(custom), "Custom") == 0);
  CHECK(strcmp(perfmon_likwid_group_events(custom), "instructions,cycles") == 0);
  CHECK(perfmon_likwid_group_event_count(custom) == 2 && perfmon_likwid_group_metric_count(custom) == 0);
  CHECK(strcmp(perfmon_likwid_group_event_name(custom, 1), "CPU_CLK_UNHALTED_CORE") == 0);
  CHECK(strcmp(perfmon_likwid_group_counter_name(custom, 1), "FIXC1") == 0);
  CHECK(perfmon_likwid_group_counter_name(custom, 2) == NULL);
  perfmon_likwid_group_close(custom);
  custom = NULL;
  CHECK(perfmon_likwid_group_open("syscalls:sys_enter_getppid", &custom) == ENOENT && custom == NULL); /* perf's */
  CHECK(unsetenv("PERF_CPUID") == 0);

  /* Counting: 1000 calls, exactly. */
  perfmon_target self = {PERFMON_TARGET_SELF, 0, NULL, 0};
  perfmon_session_options options = {0};
  options.no_inherit = 1;
  perfmon_session* session = NULL;
  CHECK(perfmon_session_open(catalog, "syscalls:sys_enter_getppid,task-clock", &self, &options, &session) == 0);
  if (session != NULL) {
    CHECK(perfmon_session_event_count(session) == 2);
    CHECK(strcmp(perfmon_session_event_name(session, 0), "syscalls:sys_enter_getppid") == 0);
    CHECK(perfmon_session_event_name(session, 2) == NULL);
    CHECK(perfmon_session_supported(session, 0) == 1);
    CHECK(perfmon_session_start(session) == 0);
    call_getppid(1000);
    CHECK(perfmon_session_stop(session) == 0);
    CHECK(perfmon_session_read(session) == 0);
    perfmon_value value;
    CHECK(perfmon_session_value(session, 0, &value) == 0);
    CHECK(value.raw == 1000);
    CHECK(value.scaled == 1000.0);
    CHECK(value.running > 0 && value.running <= value.enabled);
    double estimate = 0, standard_error = 0;
    CHECK(perfmon_session_estimate(session, 0, &estimate, &standard_error) == 0);
    CHECK(estimate == 1000.0 && standard_error == 0.0); /* never multiplexed: exact */
    CHECK(perfmon_session_value(session, 7, &value) == EINVAL);
    CHECK(perfmon_session_calibrate(session, 5) == 0);
    CHECK(perfmon_session_overhead(session, 0) == 0); /* an empty region makes no getppid call */
    /* One event held, let go and zeroed, as an overflow handler re-presets it: the calls made while
     * it is held count nothing. */
    CHECK(perfmon_session_start(session) == 0);
    call_getppid(5);
    CHECK(perfmon_session_control_event(session, 0, PERFMON_EVENT_DISABLE) == 0);
    call_getppid(7);
    CHECK(perfmon_session_control_event(session, 0, PERFMON_EVENT_ENABLE) == 0);
    call_getppid(3);
    CHECK(perfmon_session_read(session) == 0 && perfmon_session_value(session, 0, &value) == 0 && value.raw == 8);
    CHECK(perfmon_session_control_event(session, 0, PERFMON_EVENT_ZERO) == 0);
    call_getppid(2);
    CHECK(perfmon_session_read(session) == 0 && perfmon_session_value(session, 0, &value) == 0 && value.raw == 2);
    CHECK(perfmon_session_control_event(session, 2, PERFMON_EVENT_DISABLE) == EINVAL);
    CHECK(perfmon_session_set_period(session, 0, 100) == EINVAL); /* a counting event has no period */
    perfmon_session_close(session);
  }

  /* An overflow signal after exactly 300 calls; the event stops itself there. */
  {
    const int signo = SIGRTMIN + 6;
    sigset_t blocked;
    sigemptyset(&blocked);
    sigaddset(&blocked, signo);
    sigprocmask(SIG_BLOCK, &blocked, NULL);
    const uint64_t periods[] = {300};
    perfmon_session_options overflow = {0};
    overflow.no_inherit = 1;
    overflow.overflow_periods = periods;
    overflow.overflow_period_count = 1;
    overflow.overflow_signal = signo;
    overflow.stop_after = 1;
    CHECK(perfmon_session_open(catalog, "syscalls:sys_enter_getppid", &self, &overflow, &session) == 0);
    if (session != NULL) {
      CHECK(perfmon_session_start(session) == 0);
      call_getppid(1000);
      CHECK(perfmon_session_read(session) == 0);
      perfmon_value value;
      CHECK(perfmon_session_value(session, 0, &value) == 0 && value.raw == 300);
      siginfo_t info;
      struct timespec none = {0, 0};
      CHECK(sigtimedwait(&blocked, &info, &none) == signo);
      CHECK(info.si_fd == perfmon_session_fd(session, 0, 0));
      CHECK(perfmon_session_event_of_fd(session, info.si_fd) == 0);
      CHECK(perfmon_session_fd(session, 1, 0) == -1);
      perfmon_session_close(session);
    }
    sigprocmask(SIG_UNBLOCK, &blocked, NULL);
  }

  test_overflows_of_another_thread(catalog);
  test_event_sets(catalog);
  test_version_1_symbol(catalog);

  perfmon_cpu_info cpu;
  CHECK(perfmon_cpu_info_get(catalog, &cpu) == 0);
  CHECK(cpu.hardware_pmu == 0 || strlen(cpu.pmu_name) > 0);

  /* A session on a process that does not exist: ESRCH and a sentence. */
  perfmon_target nobody = {PERFMON_TARGET_PROCESS, 999999999, NULL, 0};
  session = NULL;
  CHECK(perfmon_session_open(catalog, "task-clock", &nobody, NULL, &session) == ESRCH);
  CHECK(session == NULL);
  CHECK(strlen(perfmon_last_error()) > 0);
  CHECK(perfmon_session_open(catalog, "{", &self, NULL, &session) == EINVAL);
  CHECK(perfmon_session_open(NULL, "task-clock", &self, NULL, &session) == EINVAL);
  CHECK(perfmon_session_start(NULL) == EINVAL);

  /* Sampling: a sample at every call, 300 calls. */
  perfmon_sampler_options sampling = {0};
  sampling.period = 1;
  sampling.no_inherit = 1;
  perfmon_sampler* sampler = NULL;
  CHECK(perfmon_sampler_open(catalog, "syscalls:sys_enter_getppid", &self, &sampling, &sampler) == 0);
  if (sampler != NULL) {
    CHECK(perfmon_sampler_start(sampler) == 0);
    call_getppid(300);
    CHECK(perfmon_sampler_stop(sampler) == 0);
    size_t ours = 0, handed = 0;
    CHECK(perfmon_sampler_drain(sampler, count_sample, &ours, &handed) == 0);
    CHECK(ours == 300);
    CHECK(handed == 300);
    CHECK(perfmon_sampler_lost(sampler) == 0);
    perfmon_sampler_close(sampler);
  }

  /* A recording of two samplers, one let go and closed before the end (as libpmc's pmc_release
   * does): the file is finished whole. */
  perfmon_sampler* kept = NULL;
  perfmon_sampler* let_go = NULL;
  CHECK(perfmon_sampler_open(catalog, "syscalls:sys_enter_getppid", &self, &sampling, &kept) == 0);
  CHECK(perfmon_sampler_open(catalog, "syscalls:sys_enter_getppid", &self, &sampling, &let_go) == 0);
  FILE* file = tmpfile();
  CHECK(file != NULL);
  if (kept != NULL && let_go != NULL && file != NULL) {
    perfmon_sampler* both[] = {kept, let_go};
    perfmon_recording* recording = NULL;
    CHECK(perfmon_recording_open(fileno(file), both, 2, &recording) == 0);
    CHECK(perfmon_sampler_start(kept) == 0 && perfmon_sampler_start(let_go) == 0);
    call_getppid(50);
    CHECK(perfmon_sampler_stop(let_go) == 0);
    CHECK(perfmon_recording_release(recording, let_go) == 0);
    CHECK(perfmon_recording_release(recording, NULL) == EINVAL);
    perfmon_sampler_close(let_go);
    call_getppid(50);
    CHECK(perfmon_sampler_stop(kept) == 0);
    CHECK(perfmon_recording_finish(recording, "perfmon_c_test") == 0);
    perfmon_recording_close(recording);
    char magic[8] = {0};
    CHECK(pread(fileno(file), magic, sizeof magic, 0) == (ssize_t)sizeof magic);
    CHECK(memcmp(magic, "PERFILE2", 8) == 0); /* the header, written last */
  }
  if (file != NULL) fclose(file);
  perfmon_sampler_close(kept);

  /* perfmon2's default format over the caller's memory: 40-byte entries and 8-byte words, full by
   * the post check when the largest sample (entry + 2 words) might not fit. */
  static uint64_t memory[32]; /* 256 bytes: a 40-byte header, then samples */
  perfmon_default_buffer* buffer = NULL;
  CHECK(perfmon_default_buffer_open(memory, sizeof memory, 0, 2, &buffer) == 0);
  perfmon_default_buffer* refused = NULL;
  CHECK(perfmon_default_buffer_open(memory, 60, 0, 2, &refused) == EINVAL); /* no room for one sample */
  CHECK(strstr(perfmon_last_error(), "cannot hold") != NULL);
  CHECK(perfmon_default_buffer_open(memory, sizeof memory, 4, 0, &refused) == EINVAL); /* unknown flag */
  CHECK(refused == NULL);
  if (buffer != NULL) {
    perfmon_default_entry entry = {0};
    entry.pid = 7;
    entry.ip = 0x1234;
    const uint64_t body[1] = {99};
    CHECK(perfmon_default_buffer_append(buffer, &entry, body, 1) == 0);  /* 40 + 48 = 88 */
    CHECK(perfmon_default_buffer_append(buffer, &entry, body, 1) == 0);  /* 136 */
    CHECK(perfmon_default_buffer_append(buffer, &entry, NULL, 0) == 0);  /* 176: 80 left, 56 needed */
    CHECK(perfmon_default_buffer_append(buffer, &entry, body, 1) == 1);  /* 224: 32 left: full */
    CHECK(perfmon_default_buffer_append(buffer, &entry, body, 1) == -1); /* not written */
    CHECK(memory[0] == 4 && memory[1] == 224 && memory[2] == 1 && memory[3] == sizeof memory); /* the header */
    perfmon_default_entry first;
    memcpy(&first, &memory[5], sizeof first);
    CHECK(first.pid == 7 && first.ip == 0x1234 && first.body_words == 1 && memory[10] == 99);
    perfmon_default_buffer_restart(buffer);
    CHECK(memory[0] == 0 && memory[1] == 40 && memory[2] == 1);
    CHECK(perfmon_default_buffer_append(buffer, &entry, body, 1) == 0);
    perfmon_default_buffer_close(buffer);
  }

  perfmon_catalog_free(catalog);
  return checks_result();
}
