/* The C ABI from C11: exact counts of getppid through a session and a sampler, the errors and
 * their sentences, the version, perfmon2's default-format buffer. Exits non-zero, saying what failed, when anything is
 * wrong. */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "perfmon/perfmon.h"

#include "../helpers/c_checks.h"

static void count_sample(void* context, const perfmon_sample* sample) {
  size_t* count = context;
  if (sample->event == 0 && sample->tid == (uint32_t)syscall(SYS_gettid)) ++*count;
}

int main(void) {
  CHECK(perfmon_api_version() == PERFMON_API_VERSION);
  CHECK(strlen(perfmon_version()) > 0);
  CHECK(strcmp(perfmon_last_error(), "") == 0);

  perfmon_catalog* catalog = perfmon_catalog_new();
  CHECK(catalog != NULL);
  CHECK(perfmon_catalog_check(catalog, "task-clock,{page-faults,syscalls:sys_enter_getppid}") == 0);
  CHECK(perfmon_catalog_check(catalog, "task-clok") == ENOENT);
  CHECK(strstr(perfmon_last_error(), "task-clock") != NULL); /* the nearest name is suggested */

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
