/* SPDX-License-Identifier: Apache-2.0 */
/* likwid's Marker API over perfmon's marked regions (perfmon_markers_*, perfmon/perfmon.h): a
 * program built against <likwid-marker.h> with -DLIKWID_PERFMON and linked against this library
 * instead of liblikwid counts its regions per thread with perfmon. Active where the environment
 * names the events and the result file, as likwid-perfctr -m sets it (perfmon stat --markers
 * does): LIKWID_EVENTS (groups separated by '|', each an event list in perf's syntax, one of
 * likwid's groups by name, or likwid's EVENT:COUNTER event set) and
 * LIKWID_FILEPATH (the marker file, in likwid's layout); PERFMON_MARKERS_JSON, where set, gets
 * perfmon's fuller results (enabled and running times). Otherwise every call is a cheap no-op.
 * Misuse warns on standard error, as likwid does, and goes on. */
#define _GNU_SOURCE /* sched_getcpu, CPU_SET, pthread_setaffinity_np */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "perfmon/perfmon.h"

#include "groups.h"

enum { kMaxGroups = 64, kMaxThreads = 256, kMaxEvents = 64 };

/* Set once by likwid_markerInit, before the threads mark (likwid's rule). */
static perfmon_markers* markers;
static int told_no_counters;
static marker_group groups[kMaxGroups];
static int group_count;
static int active_group;

/* Each thread's last stopped region: its group and sums. */
typedef struct {
  int group;
  size_t count;
  double seconds;
  double values[kMaxEvents];
} thread_result;
static thread_result last_results[kMaxThreads];
static int threads_started;
static __thread int thread_number = -1;

int marker_group_count(void) {
  return group_count;
}
const marker_group* marker_group_at(int group) {
  return group >= 0 && group < group_count ? &groups[group] : NULL;
}
int marker_active_group(void) {
  return active_group;
}
const double* marker_thread_result(int group, int thread, size_t* count, double* seconds) {
  if (thread < 0 || thread >= kMaxThreads || thread >= __atomic_load_n(&threads_started, __ATOMIC_ACQUIRE)) return NULL;
  const thread_result* result = &last_results[thread];
  if (result->group != group || result->count == 0) return NULL;
  *count = result->count;
  *seconds = result->seconds;
  return result->values;
}

static void warn_no_counters(void) {
  if (__atomic_exchange_n(&told_no_counters, 1, __ATOMIC_RELAXED)) return;
  fprintf(stderr, "WARN: perfmon cannot count this thread's events: %s\n", perfmon_markers_error(markers));
}

/* A region needs a name: a NULL tag is said as such, not as a failure to count. */
static int refuse_null_tag(const char* tag, const char* call) {
  if (tag != NULL) return 0;
  fprintf(stderr, "WARN: %s called with a NULL tag: give the region a name\n", call);
  return 1;
}

void likwid_markerInit(void) {
  const char* events = getenv("LIKWID_EVENTS");
  const char* file = getenv("LIKWID_FILEPATH");
  if (markers != NULL) return;
  if (events == NULL || file == NULL || *events == '\0') {
    fprintf(stderr,
            "Running without Marker API. Activate Marker API with -m on commandline "
            "(perfmon stat --markers -e EVENTS -- PROGRAM).\n");
    return;
  }
  /* The groups: split at '|'; each likwid's group or event set, else perf's event list. */
  char* lists = strdup(events);
  const char* counted[kMaxGroups];
  size_t count = 0;
  for (char *save = NULL, *group = strtok_r(lists, "|", &save); group != NULL && count < kMaxGroups;
       group = strtok_r(NULL, "|", &save)) {
    perfmon_likwid_group* likwid = NULL;
    counted[count] = perfmon_likwid_group_open(group, &likwid) == 0 ? perfmon_likwid_group_events(likwid) : group;
    groups[count++] = (marker_group){likwid, 0, NULL};
  }
  if (count == 0 || perfmon_markers_open(counted, count, &markers) != 0) {
    fprintf(stderr, "WARN: Running without Marker API: %s\n",
            count == 0 ? "LIKWID_EVENTS names no events." : perfmon_last_error());
  } else {
    for (size_t g = 0; g < count; ++g) {
      marker_group* group = &groups[g];
      group->event_count = perfmon_markers_event_count(markers, g);
      group->event_names = calloc(group->event_count + 1, sizeof *group->event_names);
      for (size_t e = 0; e < group->event_count && group->event_names != NULL; ++e) {
        const char* name = group->likwid != NULL ? perfmon_likwid_group_event_name(group->likwid, e) : NULL;
        group->event_names[e] = strdup(name != NULL ? name : perfmon_markers_event_name(markers, g, e));
      }
    }
    group_count = (int)count;
  }
  free(lists);
}

void likwid_markerThreadInit(void) {
  /* Each thread's counters open at its first REGISTER or START: nothing to do here. */
}

int likwid_markerRegisterRegion(const char* tag) {
  if (markers == NULL) return -EFAULT;
  if (refuse_null_tag(tag, "likwid_markerRegisterRegion")) return -EFAULT;
  if (perfmon_markers_register(markers, tag) != 0) {
    warn_no_counters();
    return -EFAULT;
  }
  return 0;
}

int likwid_markerStartRegion(const char* tag) {
  if (markers == NULL) return -EFAULT;
  if (refuse_null_tag(tag, "likwid_markerStartRegion")) return -EFAULT;
  if (thread_number < 0) thread_number = __atomic_fetch_add(&threads_started, 1, __ATOMIC_ACQ_REL);
  const int status = perfmon_markers_start(markers, tag);
  if (status == PERFMON_MARKER_ALREADY_STARTED) fprintf(stderr, "WARN: Region %s was already started\n", tag);
  if (status > 0) {
    warn_no_counters();
    return -EFAULT;
  }
  return 0;
}

int likwid_markerStopRegion(const char* tag) {
  if (markers == NULL) return -EFAULT;
  if (refuse_null_tag(tag, "likwid_markerStopRegion")) return -EFAULT;
  const int status = perfmon_markers_stop(markers, tag);
  if (status == PERFMON_MARKER_NOT_STARTED) {
    fprintf(stderr, "WARN: Stopping an unknown/not-started region %s\n", tag);
    return -EFAULT;
  }
  if (status == 0 && thread_number >= 0 && thread_number < kMaxThreads) {
    /* The region's sums, for perfmon_getResult and its kin. */
    thread_result* result = &last_results[thread_number];
    size_t count = kMaxEvents;
    uint64_t stops = 0;
    if (perfmon_markers_get(markers, tag, result->values, &count, &result->seconds, &stops) == 0) {
      result->group = active_group;
      result->count = count;
    }
  }
  return status == 0 ? 0 : -EFAULT;
}

int likwid_markerResetRegion(const char* tag) {
  if (markers == NULL) return -EFAULT;
  if (refuse_null_tag(tag, "likwid_markerResetRegion")) return -EFAULT;
  const int status = perfmon_markers_reset(markers, tag);
  if (status == PERFMON_MARKER_RUNNING) fprintf(stderr, "WARN: Cannot reset running region %s\n", tag);
  if (status == PERFMON_MARKER_NOT_STARTED) fprintf(stderr, "WARN: Cannot reset unknown region %s\n", tag);
  return status == 0 ? 0 : -EFAULT;
}

void likwid_markerGetRegion(const char* tag, int* nr_events, double* events, double* time, int* count) {
  if (markers == NULL || nr_events == NULL) {
    if (nr_events != NULL) *nr_events = 0;
    return;
  }
  size_t given = *nr_events > 0 ? (size_t)*nr_events : 0;
  double seconds = 0;
  uint64_t stops = 0;
  perfmon_markers_get(markers, tag, events, &given, &seconds, &stops);
  *nr_events = (int)given;
  if (time != NULL) *time = seconds;
  if (count != NULL) *count = (int)stops;
}

void likwid_markerNextGroup(void) {
  if (markers != NULL && perfmon_markers_next_group(markers) == 0)
    active_group = (int)perfmon_markers_active_group(markers);
}

/* The results as likwid writes its marker file: "<threads> <regions> <groups>", then
 * "<id>:<tag>-<group>" per region, then per region and thread
 * "<id> <group> <thread> <count> <time> <nevents> <value>...". The third column is perfmon's
 * thread index (likwid's is the hardware thread its threads are pinned to: perfmon does not pin). */
static int write_likwid_file(const char* path, size_t results) {
  FILE* out = fopen(path, "w");
  if (out == NULL) return -1;
  /* Region ids: the distinct tag-group pairs, in order of first appearance. */
  size_t* id_of = calloc(results + 1, sizeof *id_of);
  size_t regions = 0, threads = 0;
  perfmon_marked_result result, other;
  for (size_t i = 0; i < results; ++i) {
    perfmon_markers_result(markers, i, &result);
    if (result.thread + 1 > threads) threads = result.thread + 1;
    id_of[i] = regions;
    for (size_t j = 0; j < i; ++j) {
      perfmon_markers_result(markers, j, &other);
      if (other.group == result.group && strcmp(other.tag, result.tag) == 0) {
        id_of[i] = id_of[j];
        break;
      }
    }
    if (id_of[i] == regions) ++regions;
  }
  fprintf(out, "%zu %zu %zu\n", threads, regions, perfmon_markers_group_count(markers));
  for (size_t id = 0; id < regions; ++id)
    for (size_t i = 0; i < results; ++i)
      if (id_of[i] == id) {
        perfmon_markers_result(markers, i, &result);
        fprintf(out, "%zu:%s-%zu\n", id, result.tag, result.group);
        break;
      }
  for (size_t i = 0; i < results; ++i) {
    perfmon_markers_result(markers, i, &result);
    fprintf(out, "%zu %zu %zu %llu %e %zu ", id_of[i], result.group, result.thread, (unsigned long long)result.count,
            result.seconds, result.value_count);
    for (size_t v = 0; v < result.value_count; ++v) fprintf(out, "%e ", result.values[v].scaled);
    fputc('\n', out);
  }
  free(id_of);
  return fclose(out) == 0 ? 0 : -1;
}

void likwid_markerClose(void) {
  if (markers == NULL) return;
  const size_t results = perfmon_markers_take_results(markers);
  const char* file = getenv("LIKWID_FILEPATH");
  const char* json = getenv("PERFMON_MARKERS_JSON");
  if (file != NULL && write_likwid_file(file, results) != 0)
    fprintf(stderr, "WARN: cannot write the marker file %s: %s\n", file, strerror(errno));
  if (json != NULL && *json != '\0' && perfmon_markers_write_results(markers, json) != 0)
    fprintf(stderr, "WARN: cannot write perfmon's marker results: %s\n", perfmon_last_error());
  perfmon_markers_close(markers);
  markers = NULL;
}

/* likwid.h's utilities: the CPU the calling thread runs on; the thread or the whole process pinned
 * to one CPU (1 done, 0 not, as likwid returns). */
int likwid_getProcessorId(void) {
  return sched_getcpu();
}
int likwid_pinThread(int processorId) {
  if (processorId < 0 || processorId >= CPU_SETSIZE) return 0;
  cpu_set_t cpus;
  CPU_ZERO(&cpus);
  CPU_SET(processorId, &cpus);
  return pthread_setaffinity_np(pthread_self(), sizeof cpus, &cpus) == 0;
}
int likwid_pinProcess(int processorId) {
  if (processorId < 0 || processorId >= CPU_SETSIZE) return 0;
  cpu_set_t cpus;
  CPU_ZERO(&cpus);
  CPU_SET(processorId, &cpus);
  return sched_setaffinity(0, sizeof cpus, &cpus) == 0;
}

/* The marker file of the results so far written to `markerfile` (likwid 5.3's call): counting goes
 * on. 0 when written; -errno (-EFAULT where the Marker API is not active). */
int likwid_markerWriteFile(const char* markerfile) {
  if (markers == NULL) return -EFAULT;
  if (markerfile == NULL) return -EINVAL;
  return write_likwid_file(markerfile, perfmon_markers_take_results(markers)) == 0 ? 0 : -errno;
}
