/* SPDX-License-Identifier: Apache-2.0 */
/* libcpc beyond the seed's examples: the second interface (sets, buffers, restart after overflow),
 * binding another process, inheritance to new threads with and without overflow signals, and the
 * seed's errors. Counts are exact: tracepoints on getppid. Exits non-zero, saying what failed. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <perfmon/compat/libcpc.h>

#include "../helpers/c_checks.h"

static const char* const kSpec = "pic0=syscalls:sys_enter_getppid,pic1=syscalls:sys_exit_getppid,sys";

/* ---- The second interface, with an overflow restarted from the handler ------------------------- */

static cpc_t* cpc;
static cpc_set_t* set;
static cpc_buf_t* overflow_buf;
static volatile int set_overflows;

static void set_handler(int sig, siginfo_t* info, void* context) {
  (void)context;
  if (sig != SIGEMT || info->si_code != EMT_CPCOVF) return;
  uint64_t value = 1;
  if (cpc_set_sample(cpc, set, overflow_buf) == 0 && cpc_buf_get(cpc, overflow_buf, 0, &value) == 0 && value == 0)
    ++set_overflows; /* counter 0 wrapped exactly: preset 500 short, 500 calls */
  cpc_request_preset(cpc, 0, UINT64_MAX - 499);
  cpc_set_restart(cpc, set);
}

static void test_sets(void) {
  cpc = cpc_open(CPC_VER_CURRENT);
  REQUIRE(cpc != NULL);
  CHECK(cpc_open(1) == NULL && errno == EINVAL);
  CHECK(cpc_npic(cpc) > 0);
  CHECK(cpc_cciname(cpc) != NULL && cpc_cpuref(cpc) != NULL);
  CHECK(cpc_caps(cpc) & CPC_CAP_OVERFLOW_INTERRUPT);
  set = cpc_set_create(cpc);
  CHECK(cpc_set_add_request(cpc, set, "syscalls:sys_enter_getppid", 0, CPC_COUNT_USER | CPC_COUNT_SYSTEM, 0, NULL) ==
        0);
  CHECK(cpc_set_add_request(cpc, set, "task-clock", 0, CPC_COUNT_USER, 0, NULL) == 1);
  CHECK(cpc_set_add_request(cpc, set, "no-such-event", 0, CPC_COUNT_USER, 0, NULL) == -1 && errno == EINVAL);
  CHECK(cpc_set_add_request(cpc, set, "page-faults", 0, 0, 0, NULL) == -1); /* counts nothing */
  cpc_buf_t* before = cpc_buf_create(cpc, set);
  cpc_buf_t* after = cpc_buf_create(cpc, set);
  cpc_buf_t* diff = cpc_buf_create(cpc, set);
  CHECK(cpc_set_sample(cpc, set, before) == -1 && errno == EINVAL); /* not bound */
  CHECK(cpc_bind_curlwp(cpc, set, 0) == 0);
  CHECK(cpc_set_sample(cpc, set, before) == 0);
  call_getppid(700);
  CHECK(cpc_set_sample(cpc, set, after) == 0);
  cpc_buf_sub(cpc, diff, after, before);
  uint64_t calls = 0, nanoseconds = 0;
  CHECK(cpc_buf_get(cpc, diff, 0, &calls) == 0 && calls == 700);
  CHECK(cpc_buf_get(cpc, diff, 1, &nanoseconds) == 0 && nanoseconds > 0);
  CHECK(cpc_buf_get(cpc, diff, 2, &calls) == -1);
  CHECK(cpc_buf_hrtime(cpc, after) > cpc_buf_hrtime(cpc, before));
  CHECK(cpc_unbind(cpc, set) == 0);
  CHECK(cpc_set_sample(cpc, set, after) == -1);
  cpc_buf_destroy(cpc, before);
  cpc_buf_destroy(cpc, after);
  cpc_buf_destroy(cpc, diff);
  cpc_set_destroy(cpc, set);

  /* Overflow: counter 0 preset 500 short, restarted by the handler each time: 1500 calls, 3. */
  struct sigaction action;
  memset(&action, 0, sizeof action);
  action.sa_sigaction = set_handler;
  action.sa_flags = SA_SIGINFO | SA_RESTART;
  sigaction(SIGEMT, &action, NULL);
  set = cpc_set_create(cpc);
  CHECK(cpc_set_add_request(cpc, set, "syscalls:sys_enter_getppid", UINT64_MAX - 499,
                            CPC_COUNT_USER | CPC_COUNT_SYSTEM | CPC_OVF_NOTIFY_EMT, 0, NULL) == 0);
  overflow_buf = cpc_buf_create(cpc, set);
  CHECK(cpc_bind_curlwp(cpc, set, 0) == 0);
  call_getppid(1500);
  CHECK(cpc_unbind(cpc, set) == 0);
  CHECK(set_overflows == 3);
  cpc_buf_destroy(cpc, overflow_buf);
  cpc_set_destroy(cpc, set);
  signal(SIGEMT, SIG_DFL);
}

/* ---- Another process -------------------------------------------------------------------------- */

static void test_other_process(void) {
  int go[2];
  CHECK(pipe(go) == 0);
  const pid_t child = fork();
  if (child == 0) {
    char byte;
    if (read(go[0], &byte, 1) != 1) _exit(1);
    call_getppid(300);
    _exit(0);
  }
  pctx_t* pctx = pctx_capture(child, NULL, 0, NULL);
  CHECK(pctx != NULL);
  cpc_t* other = cpc_open(CPC_VER_CURRENT);
  cpc_set_t* watched = cpc_set_create(other);
  CHECK(cpc_set_add_request(other, watched, "syscalls:sys_enter_getppid", 0, CPC_COUNT_USER | CPC_COUNT_SYSTEM, 0,
                            NULL) == 0);
  cpc_buf_t* buf = cpc_buf_create(other, watched);
  CHECK(cpc_bind_pctx(other, pctx, 1, watched, 0) == 0); /* LWP 1: the main thread */
  CHECK(write(go[1], "x", 1) == 1);
  int status;
  CHECK(waitpid(child, &status, 0) == child && WIFEXITED(status) && WEXITSTATUS(status) == 0);
  uint64_t calls = 0;
  CHECK(cpc_set_sample(other, watched, buf) == 0 && cpc_buf_get(other, buf, 0, &calls) == 0);
  CHECK(calls == 300);
  CHECK(cpc_unbind(other, watched) == 0);
  cpc_buf_destroy(other, buf);
  cpc_set_destroy(other, watched);
  cpc_close(other);
  pctx_release(pctx);
  CHECK(pctx_capture(999999999, NULL, 0, NULL) == NULL);
  close(go[0]);
  close(go[1]);
}

/* ---- Handles checked as Solaris checks them ----------------------------------------------------- */

/* A set or buffer is looked up on its handle's list: destroyed twice, used after destroy, or made
 * with another handle, it is EINVAL, never a double free or a use after free (ASan would say). */
static void test_stale_handles(void) {
  cpc_t* mine = cpc_open(CPC_VER_CURRENT);
  cpc_t* other = cpc_open(CPC_VER_CURRENT);
  REQUIRE(mine != NULL && other != NULL);
  cpc_set_t* doomed = cpc_set_create(mine);
  CHECK(cpc_set_add_request(mine, doomed, "syscalls:sys_enter_getppid", 0, CPC_COUNT_USER | CPC_COUNT_SYSTEM, 0,
                            NULL) == 0);
  cpc_buf_t* buf = cpc_buf_create(mine, doomed);
  CHECK(buf != NULL);
  CHECK(cpc_buf_create(other, doomed) == NULL && errno == EINVAL); /* another handle's set */
  CHECK(cpc_set_add_request(other, doomed, "task-clock", 0, CPC_COUNT_USER, 0, NULL) == -1 && errno == EINVAL);
  uint64_t value = 7;
  CHECK(cpc_buf_get(other, buf, 0, &value) == -1 && errno == EINVAL && value == 7);
  CHECK(cpc_set_destroy(mine, doomed) == 0);
  CHECK(cpc_set_destroy(mine, doomed) == -1 && errno == EINVAL);
  CHECK(cpc_set_add_request(mine, doomed, "task-clock", 0, CPC_COUNT_USER, 0, NULL) == -1 && errno == EINVAL);
  CHECK(cpc_bind_curlwp(mine, doomed, 0) == -1 && errno == EINVAL);
  CHECK(cpc_unbind(mine, doomed) == -1 && errno == EINVAL);
  CHECK(cpc_set_sample(mine, doomed, buf) == -1 && errno == EINVAL);
  CHECK(cpc_set_restart(mine, doomed) == -1 && errno == EINVAL);
  CHECK(cpc_buf_create(mine, doomed) == NULL && errno == EINVAL);
  CHECK(cpc_buf_destroy(mine, buf) == 0);
  CHECK(cpc_buf_destroy(mine, buf) == -1 && errno == EINVAL);
  CHECK(cpc_buf_get(mine, buf, 0, &value) == -1 && errno == EINVAL);
  CHECK(cpc_buf_set(mine, buf, 0, 1) == -1 && errno == EINVAL);
  CHECK(cpc_buf_hrtime(mine, buf) == 0 && cpc_buf_tick(mine, buf) == 0);
  cpc_buf_zero(mine, buf);          /* nothing: not a buffer of the handle */
  cpc_buf_sub(mine, buf, buf, buf); /* nothing */
  CHECK(cpc_set_destroy(mine, NULL) == -1 && errno == EINVAL);
  /* Closing a handle frees what it made, bound sets included. */
  cpc_set_t* kept = cpc_set_create(other);
  CHECK(cpc_set_add_request(other, kept, "syscalls:sys_enter_getppid", 0, CPC_COUNT_USER | CPC_COUNT_SYSTEM, 0, NULL) ==
        0);
  CHECK(cpc_bind_curlwp(other, kept, 0) == 0);
  CHECK(cpc_buf_create(other, kept) != NULL);
  CHECK(cpc_close(other) == 0);
  CHECK(cpc_close(other) == -1 && errno == EINVAL);
  CHECK(cpc_set_create(other) == NULL && errno == EINVAL);
  CHECK(cpc_close(mine) == 0);
}

/* ---- Inheritance ------------------------------------------------------------------------------ */

static void* count_own_calls(void* result) {
  cpc_event_t start, end;
  int ok = cpc_take_sample(&start) == 0 && start.ce_pic[0] == 0; /* its counters start at 0 */
  call_getppid(250);
  ok = ok && cpc_take_sample(&end) == 0;
  *(uint64_t*)result = ok ? end.ce_pic[0] - start.ce_pic[0] : UINT64_MAX;
  return NULL;
}

static __thread int fresh_thread_signals, thread_overflows;

static void inherit_handler(int sig, siginfo_t* info, void* context) {
  (void)context;
  if (sig != SIGEMT || info->si_code != EMT_CPCOVF) return;
  cpc_event_t sample;
  if (cpc_take_sample(&sample) != 0) return;
  if (sample.ce_pic[0] == UINT64_MAX && sample.ce_pic[1] == UINT64_MAX)
    ++fresh_thread_signals; /* a new thread: preset it */
  else if (sample.ce_pic[0] == 0)
    ++thread_overflows;
  sample.ce_pic[0] = UINT64_MAX - 99;
  sample.ce_pic[1] = 0;
  cpc_bind_event(&sample, CPC_BIND_EMT_OVF | CPC_BIND_LWP_INHERIT);
}

static void* overflow_in_thread(void* result) {
  call_getppid(1000); /* 10 overflows of a counter preset 100 short */
  *(int*)result = fresh_thread_signals * 100 + thread_overflows;
  return NULL;
}

static void test_inheritance(int cpuver) {
  cpc_event_t event;
  REQUIRE(cpc_strtoevent(cpuver, kSpec, &event) == 0);
  CHECK(cpc_bind_event(&event, CPC_BIND_LWP_INHERIT) == 0);
  pthread_t thread;
  uint64_t thread_calls = 0;
  cpc_event_t before, after;
  CHECK(cpc_take_sample(&before) == 0);
  CHECK(pthread_create(&thread, NULL, count_own_calls, &thread_calls) == 0);
  pthread_join(thread, NULL);
  call_getppid(100);
  CHECK(cpc_take_sample(&after) == 0);
  CHECK(thread_calls == 250);                       /* the thread's own counters */
  CHECK(after.ce_pic[0] - before.ce_pic[0] == 100); /* this thread's own */
  CHECK(cpc_rele() == 0);

  struct sigaction action;
  memset(&action, 0, sizeof action);
  action.sa_sigaction = inherit_handler;
  action.sa_flags = SA_SIGINFO | SA_RESTART;
  sigaction(SIGEMT, &action, NULL);
  event.ce_pic[0] = UINT64_MAX - 99;
  event.ce_pic[1] = 0;
  CHECK(cpc_bind_event(&event, CPC_BIND_EMT_OVF | CPC_BIND_LWP_INHERIT) == 0);
  int seen = 0;
  CHECK(pthread_create(&thread, NULL, overflow_in_thread, &seen) == 0);
  pthread_join(thread, NULL);
  CHECK(seen == 110); /* one signal at its start, then ten overflows */
  cpc_bind_event(NULL, 0);
  signal(SIGEMT, SIG_DFL);
}

int main(void) {
  require_getppid_tracepoint();
  const int cpuver = cpc_getcpuver();
  CHECK(cpuver >= 0);
  CHECK(cpc_version(CPC_VER_CURRENT) == CPC_VER_CURRENT && cpc_version(99) == CPC_VER_NONE);
  CHECK(cpc_getnpic(cpuver) >= 2 && cpc_getcciname(cpuver) != NULL);
  CHECK(cpc_access() == 0);

  /* The seed's errors: sampling before binding is EINVAL; a bad specification fails to parse. */
  cpc_event_t event;
  CHECK(cpc_take_sample(&event) == -1 && errno == EINVAL);
  cpc_seterrfn(NULL);
  CHECK(cpc_strtoevent(cpuver, "pic0=no-such-event", &event) == -1);
  CHECK(cpc_strtoevent(cpuver, "pic9=task-clock", &event) == -1);
  CHECK(cpc_strtoevent(cpuver, "sys", &event) == -1);
  REQUIRE(cpc_strtoevent(cpuver, kSpec, &event) == 0);
  CHECK(strcmp(cpc_eventtostr(&event), kSpec) == 0);
  CHECK(cpc_bind_event(&event, 0x100) == -1 && errno == EINVAL);

  test_sets();
  test_stale_handles();
  test_other_process();
  test_inheritance(cpuver);

  return checks_result();
}
