/* SPDX-License-Identifier: Apache-2.0 */
/* The sampling modes' log (log.h): hwpmc writes samples to a log file that pmcstat reads; here the
 * log is a perf.data file, which `perfmon report` and `perf report` read. A thread takes the
 * samples from the kernel's buffers every 100 ms while the log is open, as hwpmc's log thread does. */
#define _GNU_SOURCE
#include "log.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "perfmon/compat/pmc.h"

#define LOG_MAX_SAMPLERS 128

static pthread_mutex_t log_lock = PTHREAD_MUTEX_INITIALIZER;
static int log_fd = -1;
static perfmon_recording* recording;
static perfmon_sampler* samplers[LOG_MAX_SAMPLERS]; /* enrolled */
static int sampler_count;
static perfmon_sampler* recorded[LOG_MAX_SAMPLERS]; /* the file's events: enrolled when it started */
static int recorded_count;
static pthread_t drainer;
static int drainer_running, drainer_stop;
static pthread_cond_t drainer_wake = PTHREAD_COND_INITIALIZER;

static int is_recorded(const perfmon_sampler* sampler) {
  for (int k = 0; k < recorded_count; ++k)
    if (recorded[k] == sampler) return 1;
  return 0;
}

static void drain_locked(perfmon_sampler* sampler) {
  if (recording != NULL && is_recorded(sampler) && perfmon_recording_drain(recording, sampler) != 0)
    fprintf(stderr, "libpmc: the log: %s\n", perfmon_last_error());
}

static void drain_all_locked(void) {
  for (int k = 0; k < sampler_count; ++k) drain_locked(samplers[k]);
}

static void* drain_periodically(void* unused) {
  (void)unused;
  pthread_mutex_lock(&log_lock);
  while (!drainer_stop) {
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_nsec += 100 * 1000 * 1000;
    if (until.tv_nsec >= 1000000000) {
      until.tv_sec += 1;
      until.tv_nsec -= 1000000000;
    }
    pthread_cond_timedwait(&drainer_wake, &log_lock, &until);
    drain_all_locked();
  }
  pthread_mutex_unlock(&log_lock);
  return NULL;
}

int pmc_log_open_sampler(const perfmon_catalog* catalog, const char* events, const perfmon_target* target,
                         uint64_t period, int callchain, perfmon_sampler** sampler) {
  perfmon_sampler_options options;
  memset(&options, 0, sizeof options);
  options.period = period;
  /* Not PERFMON_SAMPLE_PERIOD: with a fixed period it makes the kernel sample every occurrence of a
   * software event or tracepoint (docs/sampling.md). A tracepoint's fields, as perf record keeps
   * them: perf report needs them. */
  const int tracepoint = strchr(events, ':') != NULL && strchr(events, '/') == NULL;
  options.sample_type = PERFMON_SAMPLE_IP | PERFMON_SAMPLE_TID | PERFMON_SAMPLE_TIME | PERFMON_SAMPLE_CPU |
                        (callchain ? PERFMON_SAMPLE_CALLCHAIN : 0) | (tracepoint ? PERFMON_SAMPLE_RAW : 0);
  options.ring_pages = 256;
  options.task_records = 1;
  pthread_mutex_lock(&log_lock);
  int err =
      sampler_count == LOG_MAX_SAMPLERS ? ENOMEM : perfmon_sampler_open(catalog, events, target, &options, sampler);
  if (err == 0) samplers[sampler_count++] = *sampler;
  pthread_mutex_unlock(&log_lock);
  return err;
}

void pmc_log_close_sampler(perfmon_sampler* sampler) {
  pthread_mutex_lock(&log_lock);
  if (recording != NULL && is_recorded(sampler)) {
    if (perfmon_recording_release(recording, sampler) != 0)
      fprintf(stderr, "libpmc: the log: %s\n", perfmon_last_error());
    for (int k = 0; k < recorded_count; ++k)
      if (recorded[k] == sampler) recorded[k] = recorded[--recorded_count];
  }
  for (int k = 0; k < sampler_count; ++k)
    if (samplers[k] == sampler) samplers[k] = samplers[--sampler_count];
  perfmon_sampler_close(sampler);
  pthread_mutex_unlock(&log_lock);
}

int pmc_log_configured(void) {
  return log_fd >= 0;
}

static void describe_every_process(void) {
  DIR* proc = opendir("/proc");
  if (proc == NULL) return;
  for (struct dirent* entry; (entry = readdir(proc)) != NULL;)
    if (isdigit((unsigned char)entry->d_name[0])) perfmon_recording_add_process(recording, (pid_t)atoi(entry->d_name));
  closedir(proc);
}

int pmc_log_begin(perfmon_sampler* sampler, const pid_t* pids, int count, int system_wide) {
  pthread_mutex_lock(&log_lock);
  int err = 0;
  if (recording == NULL) {
    err = perfmon_recording_open(log_fd, samplers, (size_t)sampler_count, &recording);
    if (err == 0) {
      memcpy(recorded, samplers, sizeof *samplers * (size_t)sampler_count);
      recorded_count = sampler_count;
      drainer_stop = 0;
      drainer_running = pthread_create(&drainer, NULL, drain_periodically, NULL) == 0;
    } else {
      fprintf(stderr, "libpmc: the log: %s\n", perfmon_last_error());
    }
  } else if (!is_recorded(sampler)) {
    fprintf(stderr,
            "libpmc: the log already started: allocate and attach every sampling PMC before the first one starts\n");
    err = EBUSY;
  }
  if (err == 0) {
    if (system_wide) describe_every_process();
    for (int k = 0; k < count; ++k) perfmon_recording_add_process(recording, pids[k]);
  }
  pthread_mutex_unlock(&log_lock);
  return err;
}

void pmc_log_drain(perfmon_sampler* sampler) {
  pthread_mutex_lock(&log_lock);
  drain_locked(sampler);
  pthread_mutex_unlock(&log_lock);
}

/* This process's command line, for the file. */
static void own_command_line(char* out, size_t size) {
  out[0] = '\0';
  FILE* file = fopen("/proc/self/cmdline", "r");
  if (file == NULL) return;
  const size_t n = fread(out, 1, size - 1, file);
  fclose(file);
  for (size_t i = 0; i < n; ++i)
    if (out[i] == '\0') out[i] = ' ';
  out[n] = '\0';
}

/* Ends the file: the drain thread stopped, every sampler drained, the header written. */
static int finish_log(void) {
  pthread_mutex_lock(&log_lock);
  if (drainer_running) {
    drainer_stop = 1;
    pthread_cond_signal(&drainer_wake);
    pthread_mutex_unlock(&log_lock);
    pthread_join(drainer, NULL);
    pthread_mutex_lock(&log_lock);
    drainer_running = 0;
  }
  int err = 0;
  if (log_fd >= 0 && recording == NULL) err = perfmon_recording_open(log_fd, NULL, 0, &recording);
  if (recording != NULL) {
    drain_all_locked();
    char command[1024];
    own_command_line(command, sizeof command);
    if (err == 0) err = perfmon_recording_finish(recording, command);
    if (err != 0) fprintf(stderr, "libpmc: the log: %s\n", perfmon_last_error());
    perfmon_recording_close(recording);
    recording = NULL;
  }
  recorded_count = 0;
  log_fd = -1;
  pthread_mutex_unlock(&log_lock);
  return err;
}

int pmc_configure_logfile(int fd) {
  if (fd < 0) return pmc_close_logfile();
  pthread_mutex_lock(&log_lock);
  const int busy = log_fd >= 0;
  if (!busy) log_fd = fd;
  pthread_mutex_unlock(&log_lock);
  if (busy) {
    errno = EBUSY; /* one log at a time: close the first */
    return -1;
  }
  return 0;
}

int pmc_flush_logfile(void) {
  pthread_mutex_lock(&log_lock);
  const int open = recording != NULL;
  drain_all_locked();
  pthread_mutex_unlock(&log_lock);
  if (!open) {
    errno = EINVAL;
    return -1;
  }
  return 0;
}

int pmc_close_logfile(void) {
  const int err = finish_log();
  if (err != 0) {
    errno = err;
    return -1;
  }
  return 0;
}
