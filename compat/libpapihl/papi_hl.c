/* SPDX-License-Identifier: Apache-2.0 */
/* PAPI's high-level API (PAPI_hl_region_begin, _read, _region_end, _stop) over perfmon's C ABI: a
 * program built against papi.h and linked against this library instead of libpapi counts its
 * regions per thread with perfmon and writes papi_hl_output/rank_NNNNNN.json in PAPI 7's layout,
 * which papi_hl_output_writer reads (docs/regions.md).
 *   - Events from PAPI_EVENTS (comma-separated, each with an optional "=instant" or "=delta"): PAPI
 *     presets as PAPI's own table defines them for this CPU (one native event, or several and the
 *     formula of their counts: PAPI_L1_TCM, a sum), else as perf's events (the table below), PAPI's
 *     perf_event names (perf::NAME), or perfmon's own syntax. One this machine cannot count is dropped (a warning with
 *     PAPI_HL_VERBOSE). Default: PAPI_TOT_CYC where it counts, else perf::TASK-CLOCK.
 *   - Every begin is a new region instance: its id counts the thread's begins, its parent is the
 *     innermost open region (-1 for none), at most 10 open at once; an end must name the innermost
 *     open region. "cycles" (the timestamp counter's ticks: x86's rdtsc, arm64's cntvct_el0; no
 *     PMU needed) and "real_time_nsec" are always recorded.
 *   - Output at exit, only where every begin was ended. */
#define _GNU_SOURCE /* gettid */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "perfmon/perfmon.h"

#include "../common/json_string.h"

/* papi.h's return codes (the library builds without libpapi-dev). */
enum { kPapiOk = 0, kPapiEinval = -1, kPapiEnomem = -2, kPapiEnoevnt = -7, kPapiEmisc = -14 };
enum { kMaxDepth = 10, kMaxEvents = 64 }; /* kMaxEvents: native events counted, all events' together */

/* PAPI presets as perf's generic events (docs/regions.md), where the CPU's own table (PAPI's
 * papi_events.csv, perfmon_papi_preset_event) has no single native event for one. */
static const char* const kPresets[][2] = {
    {"PAPI_TOT_CYC", "cycles"},
    {"PAPI_TOT_INS", "instructions"},
    {"PAPI_REF_CYC", "ref-cycles"},
    {"PAPI_BR_INS", "branches"},
    {"PAPI_BR_MSP", "branch-misses"},
    {"PAPI_L1_DCM", "L1-dcache-load-misses"},
    {"PAPI_L1_ICM", "L1-icache-load-misses"},
    {"PAPI_L3_TCM", "cache-misses"},
    {"PAPI_L3_TCA", "cache-references"},
    {"PAPI_TLB_DM", "dTLB-load-misses"},
    {"PAPI_TLB_IM", "iTLB-load-misses"},
    {"PAPI_STL_ICY", "stalled-cycles-frontend"},
    {"PAPI_RES_STL", "stalled-cycles-backend"},
};

typedef struct {
  char* name;                  /* as the program asked: the output's key */
  char* counted;               /* as perfmon counts it: one event, or a derived preset's several */
  perfmon_papi_preset* preset; /* a derived preset's formula; NULL for one event */
  size_t first, natives;       /* its events' place among all counted, and how many */
  int instant;                 /* "=instant": the value at the end, not the difference */
} event_t;

typedef struct {
  long long* values; /* per event; then cycles, real_time_nsec */
} reading_t;

typedef struct {
  unsigned id;
  int parent;
  char* name;
  long long* values; /* cycles, real_time_nsec, then the events */
  long long* reads;  /* read_count rows of the same */
  size_t read_count;
} instance_t;

typedef struct thread_state {
  pid_t tid;
  perfmon_session* session; /* NULL: stopped (PAPI_hl_stop) or never opened */
  int failed;
  unsigned begins;
  struct {
    size_t instance;
    perfmon_value* at_begin;
    long long cycles, nsec;
  } open[kMaxDepth];
  int depth;
  instance_t* instances;
  size_t count, capacity;
  struct thread_state* next;
} thread_state;

static pthread_once_t once = PTHREAD_ONCE_INIT;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int active;
static perfmon_catalog* catalog;
static event_t events[kMaxEvents];
static size_t event_count;
static size_t native_count; /* the events counted: every event's natives */
static char* event_list;    /* the counted names, joined for perfmon_session_open */
static thread_state* threads;
static unsigned long begins_total, ends_total;
static __thread thread_state* self;

static void verbose(const char* format, ...) {
  if (getenv("PAPI_HL_VERBOSE") == NULL) return;
  va_list args;
  va_start(args, format);
  vfprintf(stdout, format, args);
  va_end(args);
}

static long long now_cycles(void) {
#if defined(__x86_64__) || defined(__i386__)
  unsigned lo, hi;
  __asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
  return (long long)(((unsigned long long)hi << 32) | lo);
#elif defined(__aarch64__)
  unsigned long long ticks;
  __asm__ volatile("mrs %0, cntvct_el0" : "=r"(ticks));
  return (long long)ticks;
#else
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
  return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
#endif
}

static long long now_nsec(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* PAPI's name as perfmon's: a preset as PAPI's own table gives it for this CPU where this machine
 * counts its events (`*preset` set where its value is a formula of their counts, not one count),
 * else by perf's generic events (kPresets); perf::NAME as perf's name in lower case. */
static size_t countable(const char* counted);
static char* counted_name(const char* name, perfmon_papi_preset** preset) {
  *preset = NULL;
  perfmon_papi_preset* defined = NULL;
  if (strncmp(name, "PAPI_", 5) == 0 && perfmon_papi_preset_open(name, &defined) == 0) {
    const char* natives = perfmon_papi_preset_events(defined);
    const size_t count = perfmon_papi_preset_event_count(defined);
    if (count > 0 && countable(natives) == count) {
      char* counted = strdup(natives);
      char native[256];
      if (perfmon_papi_preset_event(name, native, sizeof native) == 0) /* one native event, as counted */
        perfmon_papi_preset_close(defined);
      else
        *preset = defined;
      return counted;
    }
    perfmon_papi_preset_close(defined);
  }
  for (size_t i = 0; i < sizeof kPresets / sizeof kPresets[0]; ++i)
    if (strcmp(name, kPresets[i][0]) == 0) return strdup(kPresets[i][1]);
  if (strncmp(name, "perf::", 6) == 0) {
    char* lower = strdup(name + 6);
    for (char* c = lower; *c != '\0'; ++c)
      if (*c >= 'A' && *c <= 'Z') *c = (char)(*c - 'A' + 'a');
    return lower;
  }
  return strdup(name);
}

/* How many events `counted` (an event list) names where this machine counts every one of them (a
 * session of them opened on this thread); else 0. */
static size_t countable(const char* counted) {
  if (perfmon_catalog_check(catalog, counted) != 0) return 0;
  perfmon_target target = {PERFMON_TARGET_SELF, 0, NULL, 0};
  perfmon_session_options options = {0};
  options.no_inherit = 1;
  perfmon_session* session = NULL;
  if (perfmon_session_open(catalog, counted, &target, &options, &session) != 0) return 0;
  size_t count = perfmon_session_event_count(session);
  for (size_t e = 0; e < count; ++e)
    if (!perfmon_session_supported(session, e)) count = 0;
  perfmon_session_close(session);
  return count;
}

static void add_event(const char* text) {
  if (event_count == kMaxEvents) return;
  char* name = strdup(text);
  int instant = 0;
  char* suffix = strrchr(name, '=');
  if (suffix != NULL && (strcmp(suffix, "=instant") == 0 || strcmp(suffix, "=delta") == 0)) {
    instant = strcmp(suffix, "=instant") == 0;
    *suffix = '\0';
  }
  perfmon_papi_preset* preset = NULL;
  char* counted = counted_name(name, &preset);
  const size_t natives = *name == '\0' ? 0 : countable(counted);
  if (natives == 0 || native_count + natives > kMaxEvents) {
    verbose("PAPI-HL Warning: \"%s\" does not exist or is not supported on this machine.\n", name);
    free(name);
    free(counted);
    perfmon_papi_preset_close(preset);
    return;
  }
  events[event_count++] = (event_t){name, counted, preset, native_count, natives, instant};
  native_count += natives;
}

static void write_output(void);

static void initialise(void) {
  catalog = perfmon_catalog_new();
  if (catalog == NULL) return;
  const char* requested = getenv("PAPI_EVENTS");
  if (requested != NULL && *requested != '\0') {
    /* Split at commas outside perf's pmu/term,term/ spellings. */
    char* text = strdup(requested);
    int in_terms = 0;
    char* start = text;
    for (char* c = text;; ++c) {
      if (*c == '/') in_terms = !in_terms;
      if (*c == '\0' || (*c == ',' && !in_terms)) {
        const int end = *c == '\0';
        *c = '\0';
        add_event(start);
        if (end) break;
        start = c + 1;
      }
    }
    free(text);
  }
  if (event_count == 0) {
    add_event("PAPI_TOT_CYC");
    if (event_count == 0) add_event("perf::TASK-CLOCK");
  }
  size_t length = 1;
  for (size_t e = 0; e < event_count; ++e) length += strlen(events[e].counted) + 1; /* natives, in order */
  event_list = calloc(length, 1);
  for (size_t e = 0; e < event_count; ++e) {
    if (e > 0) strcat(event_list, ",");
    strcat(event_list, events[e].counted);
  }
  active = 1;
  atexit(write_output);
}

static thread_state* this_thread(void) {
  if (self != NULL) return self;
  thread_state* state = calloc(1, sizeof *state);
  state->tid = gettid();
  state->depth = -1;
  if (event_count > 0) {
    perfmon_target target = {PERFMON_TARGET_SELF, 0, NULL, 0};
    perfmon_session_options options = {0};
    options.no_inherit = 1;
    if (perfmon_session_open(catalog, event_list, &target, &options, &state->session) != 0 ||
        perfmon_session_start(state->session) != 0) {
      verbose("PAPI-HL Error: cannot count this thread's events: %s\n", perfmon_last_error());
      state->failed = 1;
    }
  }
  pthread_mutex_lock(&lock);
  state->next = threads;
  threads = state;
  pthread_mutex_unlock(&lock);
  self = state;
  return state;
}

/* The thread's counters now (native_count values; nothing where it has none). */
static void read_now(thread_state* state, perfmon_value* values) {
  if (state->session == NULL) return;
  perfmon_session_read(state->session);
  for (size_t n = 0; n < native_count; ++n) perfmon_session_value(state->session, n, &values[n]);
}

/* cycles, real_time_nsec, then each event: since the innermost open region began. */
static void differences(thread_state* state, const perfmon_value* now, long long cycles, long long nsec,
                        long long* out) {
  const int top = state->depth;
  out[0] = cycles - state->open[top].cycles;
  out[1] = nsec - state->open[top].nsec;
  double counts[kMaxEvents];
  for (size_t n = 0; n < native_count; ++n) {
    const perfmon_value* before = &state->open[top].at_begin[n];
    const unsigned long long raw = now[n].raw - before->raw;
    const unsigned long long enabled = now[n].enabled - before->enabled;
    const unsigned long long running = now[n].running - before->running;
    counts[n] = (double)raw;
    if (running > 0 && running < enabled) counts[n] = counts[n] * (double)enabled / (double)running;
  }
  for (size_t e = 0; e < event_count; ++e) {
    const event_t* event = &events[e];
    if (event->instant) { /* the value at the end: its events' counts now */
      for (size_t n = 0; n < event->natives; ++n) counts[event->first + n] = (double)now[event->first + n].raw;
    }
    const double value =
        event->preset != NULL ? perfmon_papi_preset_value(event->preset, counts + event->first) : counts[event->first];
    out[2 + e] = value == value ? llround(value) : 0; /* NaN (a division by zero): 0 */
  }
}

int PAPI_hl_region_begin(const char* region) {
  pthread_once(&once, initialise);
  if (!active || region == NULL) return kPapiEmisc;
  thread_state* state = this_thread();
  if (state->failed) return kPapiEmisc;
  if (state->depth + 1 == kMaxDepth) {
    verbose("PAPI-HL Warning: Number of nested regions exceeded for thread %d.\n", (int)state->tid);
    return kPapiEnomem;
  }
  if (state->count == state->capacity) {
    state->capacity = state->capacity == 0 ? 16 : state->capacity * 2;
    state->instances = realloc(state->instances, state->capacity * sizeof *state->instances);
  }
  instance_t* instance = &state->instances[state->count];
  *instance = (instance_t){
      state->begins,  state->depth >= 0 ? (int)state->instances[state->open[state->depth].instance].id : -1,
      strdup(region), calloc(event_count + 2, sizeof(long long)),
      NULL,           0};
  const int top = ++state->depth;
  state->open[top].instance = state->count++;
  state->begins++;
  __atomic_add_fetch(&begins_total, 1, __ATOMIC_RELAXED);
  if (state->open[top].at_begin == NULL) state->open[top].at_begin = calloc(native_count + 1, sizeof(perfmon_value));
  state->open[top].nsec = now_nsec();
  state->open[top].cycles = now_cycles();
  read_now(state, state->open[top].at_begin); /* last: what follows is the region's */
  return kPapiOk;
}

/* The innermost open region, where it is `region`. */
static instance_t* innermost(thread_state* state, const char* region) {
  if (state->depth < 0) return NULL;
  instance_t* instance = &state->instances[state->open[state->depth].instance];
  return strcmp(instance->name, region) == 0 ? instance : NULL;
}

int PAPI_hl_read(const char* region) {
  if (!active || self == NULL || self->begins == 0 || region == NULL) return kPapiEmisc;
  perfmon_value now[kMaxEvents + 1];
  read_now(self, now);
  const long long cycles = now_cycles(), nsec = now_nsec();
  instance_t* instance = innermost(self, region);
  if (instance == NULL) {
    verbose("PAPI-HL Warning: Cannot find matching region for PAPI_hl_read(\"%s\") for thread id=%d.\n", region,
            (int)self->tid);
    return kPapiOk;
  }
  instance->reads = realloc(instance->reads, (instance->read_count + 1) * (event_count + 2) * sizeof(long long));
  differences(self, now, cycles, nsec, instance->reads + instance->read_count * (event_count + 2));
  instance->read_count++;
  return kPapiOk;
}

int PAPI_hl_region_end(const char* region) {
  if (!active || self == NULL || self->begins == 0 || region == NULL) return kPapiEmisc;
  perfmon_value now[kMaxEvents + 1];
  read_now(self, now); /* first: what came before is the region's */
  const long long cycles = now_cycles(), nsec = now_nsec();
  instance_t* instance = innermost(self, region);
  if (instance == NULL) {
    verbose("PAPI-HL Warning: Cannot find matching region for PAPI_hl_region_end(\"%s\") for thread id=%d.\n", region,
            (int)self->tid);
    return kPapiEinval;
  }
  differences(self, now, cycles, nsec, instance->values);
  self->depth--;
  __atomic_add_fetch(&ends_total, 1, __ATOMIC_RELAXED);
  return kPapiOk;
}

int PAPI_hl_stop(void) {
  if (self == NULL || self->session == NULL) return kPapiEnoevnt;
  perfmon_session_stop(self->session);
  perfmon_session_close(self->session);
  self->session = NULL;
  return kPapiOk;
}

/* ---- Output: papi_hl_output/rank_NNNNNN.json, PAPI 7's layout (numbers as strings). ---------- */

static void cpu_facts(char* model, size_t size, int* max_mhz, int* min_mhz) {
  snprintf(model, size, "unknown");
  FILE* info = fopen("/proc/cpuinfo", "r");
  char line[512];
  while (info != NULL && fgets(line, sizeof line, info) != NULL) {
    char* colon = strchr(line, ':');
    if (strncmp(line, "model name", 10) != 0 || colon == NULL) continue;
    snprintf(model, size, "%s", colon + 2);
    model[strcspn(model, "\n")] = '\0';
    break;
  }
  if (info != NULL) fclose(info);
  *max_mhz = *min_mhz = 0;
  const char* files[] = {"/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq",
                         "/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_min_freq"};
  int* into[] = {max_mhz, min_mhz};
  for (int i = 0; i < 2; ++i) {
    FILE* f = fopen(files[i], "r");
    long khz = 0;
    if (f != NULL && fscanf(f, "%ld", &khz) == 1) *into[i] = (int)(khz / 1000);
    if (f != NULL) fclose(f);
  }
}

static const char* value_name(size_t column) {
  return column == 0 ? "cycles" : column == 1 ? "real_time_nsec" : events[column - 2].name;
}

static void write_instance(FILE* out, const instance_t* instance) {
  fprintf(out, "\"%u\":{\"name\":", instance->id);
  write_json_string(out, instance->name);
  fprintf(out, ",\"parent_region_id\":\"%d\"", instance->parent);
  for (size_t column = 0; column < event_count + 2; ++column) {
    fputc(',', out);
    write_json_string(out, value_name(column));
    if (instance->read_count == 0) {
      fprintf(out, ":\"%lld\"", instance->values[column]);
      continue;
    }
    fprintf(out, ":{\"region_value\":\"%lld\"", instance->values[column]);
    for (size_t r = 0; r < instance->read_count; ++r)
      fprintf(out, ",\"read_%zu\":\"%lld\"", r + 1, instance->reads[r * (event_count + 2) + column]);
    fputc('}', out);
  }
  fputc('}', out);
}

static int by_tid(const void* a, const void* b) {
  const thread_state* x = *(thread_state* const*)a;
  const thread_state* y = *(thread_state* const*)b;
  return (x->tid > y->tid) - (x->tid < y->tid);
}

static void write_json(FILE* out) {
  char model[256];
  int max_mhz, min_mhz;
  cpu_facts(model, sizeof model, &max_mhz, &min_mhz);
  fputs("{\"papi_version\":\"7.0.0.0\",\"cpu_info\":", out);
  write_json_string(out, model);
  fprintf(out, ",\"max_cpu_rate_mhz\":\"%d\",\"min_cpu_rate_mhz\":\"%d\",\"event_definitions\":{", max_mhz, min_mhz);
  for (size_t e = 0; e < event_count; ++e) {
    if (e > 0) fputc(',', out);
    write_json_string(out, events[e].name);
    fprintf(out, ":{\"component\":\"perf_event\",\"type\":\"%s\"}", events[e].instant ? "instant" : "delta");
  }
  fputs("},\"threads\":{", out);
  /* Threads by id, keyed by their index there (as PAPI does). */
  size_t count = 0;
  for (thread_state* t = threads; t != NULL; t = t->next) count += t->count > 0;
  thread_state** sorted = calloc(count + 1, sizeof *sorted);
  size_t n = 0;
  for (thread_state* t = threads; t != NULL; t = t->next)
    if (t->count > 0) sorted[n++] = t;
  qsort(sorted, n, sizeof *sorted, by_tid);
  for (size_t i = 0; i < n; ++i) {
    fprintf(out, "%s\n\"%zu\":{\"regions\":{", i == 0 ? "" : ",", i);
    for (size_t r = 0; r < sorted[i]->count; ++r) {
      if (r > 0) fputc(',', out);
      write_instance(out, &sorted[i]->instances[r]);
    }
    fputs("}}", out);
  }
  free(sorted);
  fputs("}}\n", out);
}

static int rank_of_environment(void) {
  const char* names[] = {"OMPI_COMM_WORLD_RANK", "ALPS_APP_PE", "PMI_RANK", "SLURM_PROCID"};
  for (size_t i = 0; i < sizeof names / sizeof names[0]; ++i)
    if (getenv(names[i]) != NULL) return atoi(getenv(names[i]));
  return -1;
}

/* mkdir -p: each directory of `path` that is not there yet, made. */
static int make_directories(const char* path) {
  char partial[4096];
  const size_t length = strlen(path);
  if (length == 0 || length >= sizeof partial) {
    errno = ENAMETOOLONG;
    return -1;
  }
  for (size_t end = 1; end <= length; ++end) {
    if (end < length && path[end] != '/') continue;
    memcpy(partial, path, end);
    partial[end] = '\0';
    struct stat about;
    if (stat(partial, &about) == 0) {
      if (!S_ISDIR(about.st_mode)) {
        errno = ENOTDIR;
        return -1;
      }
      continue;
    }
    if (mkdir(partial, 0755) != 0 && errno != EEXIST) return -1;
  }
  return 0;
}

static void write_output(void) {
  pthread_mutex_lock(&lock);
  int recorded = 0;
  for (thread_state* t = threads; t != NULL; t = t->next) recorded |= t->count > 0;
  if (!recorded) {
    pthread_mutex_unlock(&lock);
    return;
  }
  if (begins_total != ends_total) {
    fprintf(stderr, "PAPI-HL Warning: Cannot generate output due to not matching regions (%lu begins, %lu ends).\n",
            begins_total, ends_total);
    pthread_mutex_unlock(&lock);
    return;
  }
  const char* prefix = getenv("PAPI_OUTPUT_DIRECTORY");
  char cwd[4096];
  if (prefix == NULL)
    prefix = getcwd(cwd, sizeof cwd) != NULL ? cwd : ".";
  else if (make_directories(prefix) != 0) { /* PAPI (6.0 on) makes the directory it is given */
    fprintf(stderr, "PAPI-HL Error: Cannot create PAPI_OUTPUT_DIRECTORY %s: %s.\n", prefix, strerror(errno));
    pthread_mutex_unlock(&lock);
    return;
  }
  char dir[4200], file[4300];
  snprintf(dir, sizeof dir, "%s/papi_hl_output", prefix);
  /* An older measurement directory is kept under its time (PAPI's rule for runs that follow). */
  struct stat about;
  const time_t now = time(NULL);
  if (stat(dir, &about) == 0 && S_ISDIR(about.st_mode) && about.st_mtime < now) {
    char older[4300], stamp[32];
    const struct tm* local = localtime(&now);
    strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", local);
    snprintf(older, sizeof older, "%s-%s", dir, stamp);
    rename(dir, older);
  }
  if (mkdir(dir, 0755) != 0 && errno != EEXIST) {
    fprintf(stderr, "PAPI-HL Error: Cannot create measurement directory %s: %s.\n", dir, strerror(errno));
    pthread_mutex_unlock(&lock);
    return;
  }
  int rank = rank_of_environment();
  if (rank < 0) {
    srandom((unsigned)(now + getpid()));
    rank = (int)(random() % 1000000);
  }
  for (int attempt = 0;; ++attempt, ++rank) {
    snprintf(file, sizeof file, "%s/rank_%06d.json", dir, rank);
    const int fd = open(file, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0 && errno == EEXIST && attempt < 1000) continue;
    FILE* out = fd < 0 ? NULL : fdopen(fd, "w");
    if (out == NULL) {
      fprintf(stderr, "PAPI-HL Error: Cannot create output file %s: %s.\n", file, strerror(errno));
      break;
    }
    write_json(out);
    if (fclose(out) != 0) fprintf(stderr, "PAPI-HL Error: Cannot write %s: %s.\n", file, strerror(errno));
    verbose("PAPI-HL Info: Print results...\n");
    if (getenv("PAPI_REPORT") != NULL) {
      FILE* in = fopen(file, "r");
      char buffer[4096];
      size_t got;
      while (in != NULL && (got = fread(buffer, 1, sizeof buffer, in)) > 0) fwrite(buffer, 1, got, stdout);
      if (in != NULL) fclose(in);
    }
    break;
  }
  pthread_mutex_unlock(&lock);
}
