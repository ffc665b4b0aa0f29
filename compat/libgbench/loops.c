/* SPDX-License-Identifier: Apache-2.0 */
/* libperfmon-gbench: what perfmon bench --google-benchmark preloads into a Google Benchmark binary
 * (libbenchmark linked dynamically, as Debian ships it) so that each benchmark's counts are those
 * of its timed loop alone: not the process's start, the benchmark's set-up before its loop, or the
 * harness's timing and printing. The loop is a region of likwid's Marker API (libperfmon-likwid,
 * whose environment perfmon bench sets) from the return of benchmark::State::StartKeepRunning,
 * which `for (auto _ : state)` calls as it begins, to the call of FinishKeepRunning as it ends; the
 * region is counted per thread, so a multithreaded benchmark's threads are each counted. perfmon
 * bench runs one benchmark a process (--benchmark_filter), so one region name serves them all. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <likwid-marker.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PERFMON_GBENCH_REGION "google-benchmark-loop" /* bench.cpp's kGoogleBenchmarkRegion */
/* The members' names as the Itanium C++ ABI mangles them; a member function takes its object as
 * its first argument. */
#define START_KEEP_RUNNING "_ZN9benchmark5State16StartKeepRunningEv"
#define FINISH_KEEP_RUNNING "_ZN9benchmark5State17FinishKeepRunningEv"

typedef void (*state_member)(void* state);

static pthread_once_t resolved = PTHREAD_ONCE_INIT;
static state_member start_keep_running, finish_keep_running;

static state_member next_definition(const char* symbol) {
  void* address = dlsym(RTLD_NEXT, symbol);
  state_member member;
  memcpy(&member, &address, sizeof member); /* as POSIX's dlsym converts: ISO C has no cast for it */
  if (address == NULL) {
    /* Called through the program's own reference, so libbenchmark is there: this cannot happen. */
    fprintf(stderr, "libperfmon-gbench: %s is not defined after this library: %s\n", symbol, dlerror());
    abort();
  }
  return member;
}

static void resolve(void) {
  start_keep_running = next_definition(START_KEEP_RUNNING);
  finish_keep_running = next_definition(FINISH_KEEP_RUNNING);
  likwid_markerInit();
}

__attribute__((visibility("default"))) void perfmon_gbench_start_keep_running(void* state) __asm__(START_KEEP_RUNNING);
__attribute__((visibility("default"))) void perfmon_gbench_finish_keep_running(void* state) __asm__(
    FINISH_KEEP_RUNNING);

void perfmon_gbench_start_keep_running(void* state) {
  pthread_once(&resolved, resolve);
  start_keep_running(state);
  likwid_markerStartRegion(PERFMON_GBENCH_REGION);
}

void perfmon_gbench_finish_keep_running(void* state) {
  pthread_once(&resolved, resolve);
  likwid_markerStopRegion(PERFMON_GBENCH_REGION);
  finish_keep_running(state);
}

/* The regions' results written as the process exits (a no-op where no loop ran). */
__attribute__((destructor)) static void write_results(void) {
  likwid_markerClose();
}
