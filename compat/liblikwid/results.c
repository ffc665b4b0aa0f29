/* SPDX-License-Identifier: Apache-2.0 */
/* likwid's in-process view of a marker file (likwid.h's perfmon_readMarkerFile and the
 * perfmon_get*OfRegion calls its C-internalMarkerAPI.c example makes): the file likwid-perfctr -m,
 * perfmon stat --markers or likwid_markerWriteFile wrote, read back region by region. The layout
 * (marker.c writes it): "<threads> <regions> <groups>", then "<id>:<tag>-<group>" per region, then
 * per region and thread "<id> <group> <thread> <count> <time> <nevents> <value>...". */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "groups.h"

typedef struct {
  int thread;
  unsigned long long count;
  double time;
  int event_count;
  double* values;
} region_thread;

typedef struct {
  char* tag; /* without its "-<group>" */
  int group;
  int thread_count;
  region_thread* threads;
} region_result;

static region_result* regions;
static int region_count;

void perfmon_destroyMarkerResults(void) {
  for (int r = 0; r < region_count; ++r) {
    for (int t = 0; t < regions[r].thread_count; ++t) free(regions[r].threads[t].values);
    free(regions[r].threads);
    free(regions[r].tag);
  }
  free(regions);
  regions = NULL;
  region_count = 0;
}

/* 0 when read; -errno (-EINVAL for a file not in the layout, or not a regular file: a FIFO in its
 * place is refused, never waited on), the results left empty. */
int perfmon_readMarkerFile(const char* filename) {
  perfmon_destroyMarkerResults();
  if (filename == NULL) return -EINVAL;
  const int fd = open(filename, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return -errno;
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    close(fd);
    return -EINVAL;
  }
  FILE* in = fdopen(fd, "r");
  if (in == NULL) {
    const int err = errno;
    close(fd);
    return -err;
  }
  int threads = 0, count = 0, groups = 0, failed = 0;
  char line[4096];
  if (fgets(line, sizeof line, in) == NULL || sscanf(line, "%d %d %d", &threads, &count, &groups) != 3 || count < 0 ||
      count > 100000 || threads < 0) {
    fclose(in);
    return -EINVAL;
  }
  regions = calloc((size_t)count + 1, sizeof *regions);
  if (regions == NULL) {
    fclose(in);
    return -ENOMEM;
  }
  region_count = count;
  for (int r = 0; r < count && !failed; ++r) {
    int id = -1, offset = 0;
    if (fgets(line, sizeof line, in) == NULL || sscanf(line, "%d:%n", &id, &offset) != 1 || id != r) {
      failed = 1;
      break;
    }
    line[strcspn(line, "\n")] = '\0';
    char* name = line + offset;
    char* dash = strrchr(name, '-');
    if (dash == NULL) {
      failed = 1;
      break;
    }
    regions[r].group = atoi(dash + 1);
    *dash = '\0';
    regions[r].tag = strdup(name);
  }
  /* Each region's threads: as many lines as there are. */
  while (!failed && fgets(line, sizeof line, in) != NULL) {
    int id, group, thread, events, used;
    unsigned long long calls;
    double seconds;
    if (line[0] == '\n') continue;
    if (sscanf(line, "%d %d %d %llu %lf %d %n", &id, &group, &thread, &calls, &seconds, &events, &used) != 6 ||
        id < 0 || id >= count || events < 0 || events > 1000) {
      failed = 1;
      break;
    }
    region_result* region = &regions[id];
    region_thread* grown = realloc(region->threads, (size_t)(region->thread_count + 1) * sizeof *grown);
    if (grown == NULL) {
      failed = 1;
      break;
    }
    region->threads = grown;
    region_thread* result = &region->threads[region->thread_count++];
    result->thread = thread;
    result->count = calls;
    result->time = seconds;
    result->event_count = events;
    result->values = calloc((size_t)events + 1, sizeof *result->values);
    const char* at = line + used;
    for (int e = 0; e < events && result->values != NULL; ++e) {
      char* end = NULL;
      result->values[e] = strtod(at, &end);
      if (end == at) failed = 1;
      at = end;
    }
  }
  fclose(in);
  if (failed) {
    perfmon_destroyMarkerResults();
    return -EINVAL;
  }
  return 0;
}

static region_result* region_at(int region) {
  return region >= 0 && region < region_count ? &regions[region] : NULL;
}

/* A region's result of its thread at `thread` (likwid's index among the region's threads). */
static region_thread* thread_at(int region, int thread) {
  region_result* found = region_at(region);
  return found != NULL && thread >= 0 && thread < found->thread_count ? &found->threads[thread] : NULL;
}

int perfmon_getNumberOfRegions(void) {
  return region_count;
}
int perfmon_getGroupOfRegion(int region) {
  return region_at(region) ? region_at(region)->group : -EINVAL;
}
char* perfmon_getTagOfRegion(int region) {
  return region_at(region) ? region_at(region)->tag : NULL;
}
int perfmon_getThreadsOfRegion(int region) {
  return region_at(region) ? region_at(region)->thread_count : -EINVAL;
}
int perfmon_getEventsOfRegion(int region) {
  return region_at(region) && region_at(region)->thread_count > 0 ? region_at(region)->threads[0].event_count : 0;
}
/* A region's metrics are its group's, where this process's LIKWID_EVENTS named that group by likwid's
 * name (groups.h): computed from the region's counts and time in the thread. */
static perfmon_likwid_group* likwid_group_of_region(int region) {
  const marker_group* group = region_at(region) ? marker_group_at(region_at(region)->group) : NULL;
  return group != NULL ? group->likwid : NULL;
}
int perfmon_getMetricsOfRegion(int region) {
  if (region_at(region) == NULL) return -EINVAL;
  return (int)perfmon_likwid_group_metric_count(likwid_group_of_region(region));
}
double perfmon_getMetricOfRegionThread(int region, int metric, int thread) {
  const region_thread* found = thread_at(region, thread);
  if (found == NULL || metric < 0) return 0;
  const double value =
      perfmon_likwid_group_metric_value(likwid_group_of_region(region), (size_t)metric, found->values, found->time);
  return value == value ? value : 0; /* NaN (no value): 0, as likwid prints */
}
int perfmon_getCpulistOfRegion(int region, int count, int* cpulist) {
  const region_result* found = region_at(region);
  if (found == NULL || cpulist == NULL) return -EINVAL;
  int n = 0;
  for (; n < count && n < found->thread_count; ++n) cpulist[n] = found->threads[n].thread;
  return n;
}
double perfmon_getTimeOfRegion(int region, int thread) {
  const region_thread* found = thread_at(region, thread);
  return found ? found->time : 0;
}
int perfmon_getCountOfRegion(int region, int thread) {
  const region_thread* found = thread_at(region, thread);
  return found ? (int)found->count : 0;
}
double perfmon_getResultOfRegionThread(int region, int event, int thread) {
  const region_thread* found = thread_at(region, thread);
  return found && event >= 0 && event < found->event_count ? found->values[event] : 0;
}

/* ---- The groups this process's LIKWID_EVENTS named (groups.h): likwid's group-definition calls. */

static const marker_group* group_at(int group) {
  return marker_group_at(group);
}
int perfmon_getNumberOfGroups(void) {
  return marker_group_count();
}
int perfmon_getIdOfActiveGroup(void) {
  return marker_active_group();
}
char* perfmon_getGroupName(int group) {
  const marker_group* found = group_at(group);
  if (found == NULL) return NULL;
  return (char*)(found->likwid != NULL ? perfmon_likwid_group_name(found->likwid) : "Custom");
}
int perfmon_getNumberOfEvents(int group) {
  const marker_group* found = group_at(group);
  return found != NULL ? (int)found->event_count : -EINVAL;
}
char* perfmon_getEventName(int group, int event) {
  const marker_group* found = group_at(group);
  return found != NULL && event >= 0 && (size_t)event < found->event_count ? found->event_names[event] : NULL;
}
char* perfmon_getCounterName(int group, int event) {
  const marker_group* found = group_at(group);
  if (found == NULL || event < 0) return NULL;
  return (char*)perfmon_likwid_group_counter_name(found->likwid, (size_t)event);
}
int perfmon_getNumberOfMetrics(int group) {
  const marker_group* found = group_at(group);
  return found != NULL ? (int)perfmon_likwid_group_metric_count(found->likwid) : -EINVAL;
}
char* perfmon_getMetricName(int group, int metric) {
  const marker_group* found = group_at(group);
  if (found == NULL || metric < 0) return NULL;
  return (char*)perfmon_likwid_group_metric_name(found->likwid, (size_t)metric);
}
/* A thread's results in a group: the sums of the region it stopped last there (what
 * LIKWID_MARKER_GET gives for that region). perfmon keeps a region's sums, not each cycle's, so the
 * Last calls answer the same. Threads are numbered in the order they first started a region. */
double perfmon_getResult(int group, int event, int thread) {
  size_t count = 0;
  double seconds = 0;
  const double* values = marker_thread_result(group, thread, &count, &seconds);
  return values != NULL && event >= 0 && (size_t)event < count ? values[event] : 0;
}
double perfmon_getLastResult(int group, int event, int thread) {
  return perfmon_getResult(group, event, thread);
}
double perfmon_getMetric(int group, int metric, int thread) {
  size_t count = 0;
  double seconds = 0;
  const double* values = marker_thread_result(group, thread, &count, &seconds);
  const marker_group* found = group_at(group);
  if (values == NULL || found == NULL || metric < 0) return 0;
  const double value = perfmon_likwid_group_metric_value(found->likwid, (size_t)metric, values, seconds);
  return value == value ? value : 0;
}
double perfmon_getLastMetric(int group, int metric, int thread) {
  return perfmon_getMetric(group, metric, thread);
}
