/* SPDX-License-Identifier: Apache-2.0 */
/* perfmon: the C ABI. Opaque handles for the catalogue, counting sessions and samplers; every
 * call returns 0 or an errno value, and perfmon_last_error() says what went wrong in one sentence
 * (what to do included). No C++ exception crosses this boundary. C11 and C++.
 *
 *   perfmon_catalog *catalog = perfmon_catalog_new();
 *   perfmon_session *session;
 *   perfmon_target self = {PERFMON_TARGET_SELF, 0, NULL, 0};
 *   if (perfmon_session_open(catalog, "task-clock,page-faults", &self, NULL, &session) != 0) {
 *     fprintf(stderr, "%s\n", perfmon_last_error());
 *     return 1;
 *   }
 *   perfmon_session_start(session);
 *   work();
 *   perfmon_session_stop(session);
 *   perfmon_session_read(session);
 *   perfmon_value value;
 *   perfmon_session_value(session, 1, &value);   // value.raw page faults
 *   perfmon_session_close(session);
 *   perfmon_catalog_free(catalog);
 *
 * The ABI is versioned twice: perfmon_api_version() (PERFMON_API_VERSION when the program was
 * built; a library answers with its own, and keeps every call of lower versions), and the
 * library's ELF symbol versions: PERFMON_1 for the first calls, PERFMON_2 for those version 2
 * added or changed (perfmon_session_open, whose options grew; a program built against version 1
 * keeps calling the PERFMON_1 one, which reads the shorter options), PERFMON_3 for the event sets,
 * PERFMON_4 for one event's controls, PERFMON_5 (API version 4) for marked regions, PERFMON_6 (API
 * version 5) for a recording's sampler let go before its end (perfmon_recording_release),
 * PERFMON_7 (API version 6) for PAPI's presets (perfmon_papi_preset_event), PERFMON_8 (API version
 * 7) for those PAPI derives from several events (perfmon_papi_preset_open) and likwid's groups
 * (perfmon_likwid_group_open), PERFMON_9 (API version 8) for marked regions' results written in
 * perfmon's file (perfmon_markers_write_results).
 */
#ifndef PERFMON_PERFMON_H
#define PERFMON_PERFMON_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#ifdef __cplusplus
extern "C" {
#endif

#define PERFMON_API_VERSION 8

/* The C ABI version of the library in use, and its release ("0.1.0"). */
int perfmon_api_version(void);
const char* perfmon_version(void);

/* What the last failed call of this thread said: one sentence, owned by the library, valid until
 * the thread's next failing call. "" when none failed yet. */
const char* perfmon_last_error(void);

/* ---- Events ---------------------------------------------------------------------------------- */

typedef struct perfmon_catalog perfmon_catalog;

/* Every source of event names this machine has (sysfs, tracefs, the tables, libpfm4). NULL when
 * out of memory. */
perfmon_catalog* perfmon_catalog_new(void);
void perfmon_catalog_free(perfmon_catalog* catalog);
/* 0 when `events` (perf's syntax, a comma-separated list, groups in braces) parses; else EINVAL
 * or ENOENT (unknown event), with perfmon_last_error() naming the nearest known names. */
int perfmon_catalog_check(const perfmon_catalog* catalog, const char* events);

/* Hands `callback` every event of one source (NULL: of all), as `perfmon list` shows them: its
 * name as an event list writes it, and a description. Sources: "hardware", "software",
 * "hw-cache", "pmu", "vendor", "pmc.core", "tracepoint". Strings valid during the callback. */
typedef void (*perfmon_event_callback)(void* context, const char* name, const char* description);
int perfmon_catalog_list(const perfmon_catalog* catalog, const char* source, perfmon_event_callback callback,
                         void* context);

/* PAPI's preset `preset` ("PAPI_L1_DCM") on this CPU, as PAPI's own table defines it
 * (perfmon/papi_presets.hpp), where that is one native event: its name, copied into `event`
 * (`size` bytes, cut to fit). 0; ENOENT where this CPU's table has no such preset, EDOM where it
 * derives it from several events (PAPI_L1_TCM: a sum), with perfmon_last_error() saying which. */
int perfmon_papi_preset_event(const char* preset, char* event, size_t size);

/* Any of this CPU's presets, derived ones too (PAPI_L1_TCM: L1D misses + L1I misses), as its
 * native events and the formula that makes the preset's value of their counts:
 *
 *   perfmon_papi_preset* preset;
 *   perfmon_papi_preset_open("PAPI_L1_TCM", &preset);
 *   count perfmon_papi_preset_events(preset), then, with their counts in that order:
 *   double value = perfmon_papi_preset_value(preset, counts);
 *   perfmon_papi_preset_close(preset);
 *
 * open: 0, or ENOENT where this CPU's table has no such preset. The events: comma-separated, in
 * perf's syntax, valid until close; event_count of them. The value: NaN where the counts give none
 * (a division by zero). Version 7. */
typedef struct perfmon_papi_preset perfmon_papi_preset;
int perfmon_papi_preset_open(const char* preset, perfmon_papi_preset** out);
const char* perfmon_papi_preset_events(const perfmon_papi_preset* preset);
size_t perfmon_papi_preset_event_count(const perfmon_papi_preset* preset);
double perfmon_papi_preset_value(const perfmon_papi_preset* preset, const double* counts);
void perfmon_papi_preset_close(perfmon_papi_preset* preset);

/* ---- This machine ---------------------------------------------------------------------------- */

typedef struct perfmon_cpu_info {
  char vendor[32];          /* "GenuineIntel", "AuthenticAMD", "ARM", ... ("" unknown) */
  char model[96];           /* the model name, as /proc/cpuinfo gives it */
  int family, model_number; /* x86 family and model, -1 elsewhere */
  int hardware_pmu;         /* 1 when the kernel drives a core PMU (cycles, instructions, raw codes) */
  char pmu_name[32];        /* that PMU ("cpu", "armv8_pmuv3_0"), "" without one */
  int general_counters;     /* programmable counters per logical CPU, -1 unknown */
  int general_width;        /* their width in bits, -1 unknown */
  int fixed_counters;       /* fixed-function counters, -1 unknown */
} perfmon_cpu_info;

/* What this CPU and kernel offer for counting (cheap: no probing). */
int perfmon_cpu_info_get(const perfmon_catalog* catalog, perfmon_cpu_info* info);

/* ---- Where ----------------------------------------------------------------------------------- */

typedef enum perfmon_target_kind {
  PERFMON_TARGET_SELF = 0,    /* the calling thread (and with inherit, the threads it creates) */
  PERFMON_TARGET_THREAD = 1,  /* the thread `id` */
  PERFMON_TARGET_PROCESS = 2, /* every thread of process `id` */
  PERFMON_TARGET_CPUS = 3     /* everything on `cpus` (NULL: every online CPU) */
} perfmon_target_kind;

typedef struct perfmon_target {
  perfmon_target_kind kind;
  pid_t id;
  const int* cpus;
  size_t cpu_count;
} perfmon_target;

/* ---- Counting -------------------------------------------------------------------------------- */

typedef struct perfmon_value {
  uint64_t raw;     /* counted while on the PMU */
  uint64_t enabled; /* ns enabled */
  uint64_t running; /* ns on the PMU (less than enabled when multiplexed) */
  uint64_t lost;
  double scaled; /* raw * enabled / running: the count extrapolated to the enabled time */
} perfmon_value;

/* Zero-initialise, then set what differs from the defaults. NULL options: the defaults. */
typedef struct perfmon_session_options {
  int no_inherit;       /* do not count threads the target creates later (default: count them) */
  int fail_unsupported; /* fail the open for an event this machine cannot count (default: keep it, unsupported) */
  int user_space_reads; /* read hardware counters with rdpmc / mrs where possible */
  int strict;           /* refuse what would be multiplexed, pin every group */
  int error_bars;       /* keep each read as a slice, for perfmon_session_estimate() */
  /* Overflow signals (Solaris cpc's CPC_BIND_EMT_OVF, perfmon2's notifying PMDs), for the calling
   * thread with no_inherit: event i with overflow_periods[i] > 0 (i < overflow_period_count)
   * overflows after that many events and every that many after, raising overflow_signal in the
   * thread that opened the session (si_code POLL_IN, POLL_HUP for the last of stop_after; si_fd
   * names the event: perfmon_session_event_of_fd()). With stop_after > 0 the event stops itself,
   * at the overflow, after that many, until perfmon_session_rearm(). Such an event must lead its
   * group and not be a tracepoint (the kernel restarts neither). */
  const uint64_t* overflow_periods;
  size_t overflow_period_count;
  int overflow_signal;
  int stop_after;
  /* Version 2. The thread of this process that takes the overflow signals (0: the one that opens
   * the session): with one named, any target without inherit overflows (another process's thread,
   * a CPU), and that thread takes the signals while the target runs on. */
  pid_t overflow_thread;
  /* Version 2. Keep each overflow's record (IP, pid, tid, CPU, CLOCK_MONOTONIC time), for
   * perfmon_session_take_overflow(). Not with user_space_reads. */
  int overflow_records;
} perfmon_session_options;

typedef struct perfmon_session perfmon_session;
struct perfmon_sample; /* (Sampling, below) */

int perfmon_session_open(const perfmon_catalog* catalog, const char* events, const perfmon_target* target,
                         const perfmon_session_options* options, perfmon_session** session);
void perfmon_session_close(perfmon_session* session);
int perfmon_session_start(perfmon_session* session);
int perfmon_session_stop(perfmon_session* session);
int perfmon_session_reset(perfmon_session* session);
/* One read(2) per group (or user-mode reads); allocates nothing. */
int perfmon_session_read(perfmon_session* session);
/* How many values the last read took in user mode (rdpmc, mrs), without a system call. */
size_t perfmon_session_user_mode_reads(const perfmon_session* session);
size_t perfmon_session_event_count(const perfmon_session* session);
/* The event's name as written; NULL for an index out of range. */
const char* perfmon_session_event_name(const perfmon_session* session, size_t index);
/* 1 when this machine counts it; else 0 and the reason (NULL for an index out of range). */
int perfmon_session_supported(const perfmon_session* session, size_t index);
const char* perfmon_session_unsupported_reason(const perfmon_session* session, size_t index);
/* The last read value of an event, summed over the target's threads or CPUs. EINVAL for an index
 * out of range. */
int perfmon_session_value(const perfmon_session* session, size_t index, perfmon_value* value);
/* The scaled value and its standard error (error_bars); *standard_error is -1 when unknown. */
int perfmon_session_estimate(const perfmon_session* session, size_t index, double* value, double* standard_error);
/* Overhead calibration (Target self only): the median count of `repetitions` empty regions. */
int perfmon_session_calibrate(perfmon_session* session, int repetitions);
uint64_t perfmon_session_overhead(const perfmon_session* session, size_t index);
/* Counts only the occurrences of tracepoint `index` passing an ftrace filter ("error_code & 2"):
 * perf's --filter. EINVAL, with the reason, for another event or a filter the kernel refuses. */
int perfmon_session_set_filter(perfmon_session* session, size_t index, const char* filter);
/* The event's file descriptor at location `location` (a thread or CPU of the target, in order), or
 * -1: for poll(2), or an ioctl of the caller's. */
int perfmon_session_fd(const perfmon_session* session, size_t index, size_t location);
/* The event an overflow signal's si_fd names, or -1. Async-signal-safe. */
long perfmon_session_event_of_fd(const perfmon_session* session, int fd);
/* Gives an overflowing event a new period (0: keep it) and arms it for `overflows` more (0: the
 * session's stop_after): the next overflow comes after exactly `period` events. Async-signal-safe. */
int perfmon_session_rearm(perfmon_session* session, size_t index, uint64_t period, int overflows);
/* What perfmon_session_control_event() and perfmon_event_sets_control_event() do to one event at
 * every location of its measurement. */
typedef enum {
  PERFMON_EVENT_DISABLE, /* stop counting, the count kept */
  PERFMON_EVENT_ENABLE,  /* count on from where it stands */
  PERFMON_EVENT_ZERO     /* the count back to 0 */
} perfmon_event_control;
/* One event held, let go or zeroed: what an overflow handler that re-presets counters does.
 * Async-signal-safe; 0 or an errno (EINVAL for no such event), no sentence. */
int perfmon_session_control_event(perfmon_session* session, size_t index, perfmon_event_control control);
/* A sampling event's next overflow comes `period` events after now. Async-signal-safe; 0 or an errno. */
int perfmon_session_set_period(perfmon_session* session, size_t index, uint64_t period);
/* Version 2, with overflow_records: takes the oldest overflow record waiting in the ring of `fd`'s
 * thread or CPU (`fd`: an overflow signal's si_fd) into `sample` (event, ip, pid, tid, time, cpu;
 * no callchain). 0, or ENOENT when none waits: every overflow leaves one, so a handler takes them
 * until ENOENT. Async-signal-safe; one caller at a time per session. */
int perfmon_session_take_overflow(perfmon_session* session, int fd, struct perfmon_sample* sample);

/* ---- Sampling -------------------------------------------------------------------------------- */

typedef struct perfmon_sample {
  size_t event; /* index among the sampler's events */
  uint64_t ip;
  uint32_t pid, tid;
  uint64_t time;
  uint32_t cpu;
  uint64_t period; /* the period that just ran out */
  uint64_t addr;
  const uint64_t* callchain; /* valid during the callback */
  size_t callchain_length;
} perfmon_sample;

/* What a sample holds: the kernel's PERF_SAMPLE_* bits, by the same values (its ABI), so that a
 * program needs no kernel header to ask for them. */
#define PERFMON_SAMPLE_IP (1u << 0)
#define PERFMON_SAMPLE_TID (1u << 1)
#define PERFMON_SAMPLE_TIME (1u << 2)
#define PERFMON_SAMPLE_ADDR (1u << 3)
#define PERFMON_SAMPLE_CALLCHAIN (1u << 5)
#define PERFMON_SAMPLE_ID (1u << 6)
#define PERFMON_SAMPLE_CPU (1u << 7)
#define PERFMON_SAMPLE_PERIOD (1u << 8)
#define PERFMON_SAMPLE_RAW (1u << 10)

typedef struct perfmon_sampler_options {
  uint64_t period;      /* a sample every `period` events, or */
  uint64_t frequency;   /* about `frequency` samples a second */
  uint64_t sample_type; /* PERFMON_SAMPLE_* (PERF_SAMPLE_*) bits; 0: IP, TID, TIME, CPU */
  size_t ring_pages;    /* data pages per ring, a power of two; 0: 64 */
  int no_inherit;
  int task_records; /* also the target's COMM, MMAP2, FORK and EXIT records: what a report names code by */
} perfmon_sampler_options;

typedef struct perfmon_sampler perfmon_sampler;
typedef void (*perfmon_sample_callback)(void* context, const perfmon_sample* sample);

int perfmon_sampler_open(const perfmon_catalog* catalog, const char* events, const perfmon_target* target,
                         const perfmon_sampler_options* options, perfmon_sampler** sampler);
void perfmon_sampler_close(perfmon_sampler* sampler);
int perfmon_sampler_start(perfmon_sampler* sampler);
int perfmon_sampler_stop(perfmon_sampler* sampler);
/* Hands every sample waiting in the rings to `callback`; *samples (may be NULL) says how many. */
int perfmon_sampler_drain(perfmon_sampler* sampler, perfmon_sample_callback callback, void* context, size_t* samples);
/* Samples the kernel dropped because a ring was full, by the events' own count (Linux 6.0); on an
 * older kernel, the records of any kind it dropped (PERF_RECORD_LOST: samples and side-band alike). */
uint64_t perfmon_sampler_lost(const perfmon_sampler* sampler);

/* ---- Event sets (perfmon2 §3.7; docs/api.md) -------------------------------------------------- */

/* Version 3. More events than the PMU has counters, one set on it at a time, switched by the
 * library after a timeout or after overflows of trigger events; an overflow hook takes part in
 * every overflow of the active set (perfmon2's notifications, sampling and masking sit on it). */

typedef struct perfmon_set_trigger {
  size_t event;       /* an event of the set (its index, in the order written) */
  uint64_t period;    /* it overflows every `period` events */
  uint32_t overflows; /* and the set gives way after this many of its overflows */
} perfmon_set_trigger;

typedef struct perfmon_set_definition {
  uint16_t id;        /* sets are ordered by id; holes are allowed */
  const char* events; /* perf's syntax, groups in braces */
  int explicit_next;  /* 1: `next` follows this set; 0: the next id, round-robin */
  uint16_t next;
  uint64_t timeout_ns;                 /* give way after this long on the PMU (at least 10 us), or */
  const perfmon_set_trigger* triggers; /* after overflows of these */
  size_t trigger_count;
  /* Event i overflows every overflow_periods[i] events (0: never), for the hook (i <
   * overflow_period_count); a trigger's period is its own. */
  const uint64_t* overflow_periods;
  size_t overflow_period_count;
} perfmon_set_definition;

typedef enum perfmon_overflow_action {
  PERFMON_OVERFLOW_CONTINUE = 0, /* the set counts on (and gives way if a trigger ran out) */
  PERFMON_OVERFLOW_HOLD = 1      /* the active set stops, its timer too, until perfmon_event_sets_resume() */
} perfmon_overflow_action;

/* Called with the kernel's record of each overflow of the active set's overflowing events
 * (record->event: the event's index in the set; ip, pid, tid, cpu, CLOCK_MONOTONIC time), where
 * switches run, before a trigger's overflow is counted. It may read the sets and ioctl() their fds.
 * With the default switching for the calling thread it runs in a signal handler:
 * async-signal-safe calls only. */
typedef perfmon_overflow_action (*perfmon_overflow_hook)(void* context, size_t set, const perfmon_sample* record);

typedef struct perfmon_event_sets_options {
  int no_inherit;
  int fail_unsupported;
  uint16_t first; /* the id of the set on the PMU first */
  int signal;     /* the real-time signal overflows arrive as; 0: SIGRTMIN + 2 */
  /* For the calling thread, switches run in a signal handler the library installs; with
   * caller_switches (and for every other target) they run in perfmon_event_sets_service() or
   * perfmon_event_sets_handle_overflow(), the signal blocked in the thread that opened the sets. */
  int caller_switches;
  /* A thread of this process that takes the signals instead (it blocks them itself and hands them
   * to perfmon_event_sets_handle_overflow()); the caller serializes its calls on the sets. */
  pid_t overflow_thread;
  perfmon_overflow_hook on_overflow;
  void* hook_context;
} perfmon_event_sets_options;

typedef struct perfmon_set_info {
  uint16_t id, next;
  uint64_t runs;                 /* activations, the first included */
  uint64_t active_ns;            /* time on the PMU, as of the last read */
  uint64_t last_switch_triggers; /* bit n: trigger n ended the set's last turn (0 after a timeout) */
  uint64_t timeout_ns;           /* the effective timeout */
  uint64_t timeout_left_ns;      /* what is left of it in the set's current period */
} perfmon_set_info;

typedef struct perfmon_event_sets perfmon_event_sets;

/* Opens every set on the target, disabled, set `first` active. EINVAL with the reason for a set
 * that cannot work (no events, a duplicate id, a next or trigger that names nothing, a timeout and
 * triggers both). */
int perfmon_event_sets_open(const perfmon_catalog* catalog, const perfmon_set_definition* sets, size_t count,
                            const perfmon_target* target, const perfmon_event_sets_options* options,
                            perfmon_event_sets** event_sets);
void perfmon_event_sets_close(perfmon_event_sets* event_sets);
int perfmon_event_sets_start(perfmon_event_sets* event_sets);
int perfmon_event_sets_stop(perfmon_event_sets* event_sets);
int perfmon_event_sets_reset(perfmon_event_sets* event_sets);
/* Reads every set; no switch splits it. Allocates nothing (the hook may call it). */
int perfmon_event_sets_read(perfmon_event_sets* event_sets);
/* The same for one set (an index in id order): what a hook reading its own set needs. */
int perfmon_event_sets_read_set(perfmon_event_sets* event_sets, size_t set);
/* The next set, or set `set` (an index in id order), becomes the active one now. */
int perfmon_event_sets_switch_now(perfmon_event_sets* event_sets);
int perfmon_event_sets_switch_to(perfmon_event_sets* event_sets, size_t set);
/* After PERFMON_OVERFLOW_HOLD: the set counts again (if started), or gives way first if a trigger
 * ran out meanwhile. */
int perfmon_event_sets_resume(perfmon_event_sets* event_sets);
/* Holds the active set as PERFMON_OVERFLOW_HOLD does. */
int perfmon_event_sets_hold(perfmon_event_sets* event_sets);
int perfmon_event_sets_held(const perfmon_event_sets* event_sets);
/* An overflow signal taken by the caller (its si_signo and si_fd): 1 when the sets switched, 0
 * when not (or the signal is another's). Async-signal-safe. */
int perfmon_event_sets_handle_overflow(perfmon_event_sets* event_sets, int signal, int fd);
/* Hands every overflow record waiting to the hook (before a stop; after SIGIO replaced signals a
 * full queue lost). 1 when the sets switched. */
int perfmon_event_sets_handle_waiting(perfmon_event_sets* event_sets);
/* Waits up to timeout_ms (-1: no limit) for overflow signals and handles them: the switches made. */
int perfmon_event_sets_service(perfmon_event_sets* event_sets, int timeout_ms);
int perfmon_event_sets_signal(const perfmon_event_sets* event_sets);
size_t perfmon_event_sets_count(const perfmon_event_sets* event_sets);
size_t perfmon_event_sets_active(const perfmon_event_sets* event_sets); /* an index, in id order */
uint64_t perfmon_event_sets_switches(const perfmon_event_sets* event_sets);
/* Overflows of a set's trigger (an index into its triggers) before it ends the set's turn. */
uint32_t perfmon_event_sets_overflows_left(const perfmon_event_sets* event_sets, size_t set, size_t trigger);
int perfmon_event_sets_info(const perfmon_event_sets* event_sets, size_t set, perfmon_set_info* info);
size_t perfmon_event_sets_event_count(const perfmon_event_sets* event_sets, size_t set);
/* The last read value of a set's event: raw as counted, scaled to the whole measurement. */
int perfmon_event_sets_value(const perfmon_event_sets* event_sets, size_t set, size_t event, perfmon_value* value);
/* The descriptor of a set's event at a location (a thread or CPU of the target), or -1. */
int perfmon_event_sets_fd(const perfmon_event_sets* event_sets, size_t set, size_t event, size_t location);
/* A set's event held, let go or zeroed, and its overflow period, as for a session's
 * (perfmon_session_control_event). Async-signal-safe; 0 or an errno. */
int perfmon_event_sets_control_event(perfmon_event_sets* event_sets, size_t set, size_t event,
                                     perfmon_event_control control);
int perfmon_event_sets_set_period(perfmon_event_sets* event_sets, size_t set, size_t event, uint64_t period);

/* ---- Recording: perf.data files ---------------------------------------------------------------- */

/* A perf.data file being written to `fd` (a regular file open for writing, at offset 0), describing
 * the events of `samplers`, which must stay open until perfmon_recording_finish (or
 * perfmon_recording_release). `perfmon report
 * -i` and `perf report -i` read it. */
typedef struct perfmon_recording perfmon_recording;
int perfmon_recording_open(int fd, perfmon_sampler* const* samplers, size_t count, perfmon_recording** recording);
/* Records what a running process did before the recording, as perf record does for one it attaches
 * to: its threads' names and its executable mappings. */
int perfmon_recording_add_process(perfmon_recording* recording, pid_t pid);
/* Writes every record waiting in the sampler's rings into the file (ENOSPC when the disk is full). */
int perfmon_recording_drain(perfmon_recording* recording, perfmon_sampler* sampler);
/* Before one of the recording's samplers is closed ahead of perfmon_recording_finish: what its rings
 * still hold written into the file, and the samples it lost kept for the file's end. */
int perfmon_recording_release(perfmon_recording* recording, perfmon_sampler* sampler);
/* The end, as perf record ends a recording: what the samplers' rings still hold written into the
 * file, the samples they counted as dropped written down (PERF_RECORD_LOST_SAMPLES), then the header
 * and the feature sections: the file is complete. `command_line` is what the file says recorded it. */
int perfmon_recording_finish(perfmon_recording* recording, const char* command_line);
void perfmon_recording_close(perfmon_recording* recording);

/* ---- likwid's performance groups (perfmon/likwid_group.hpp) ---------------------------------- */

/* A group as likwid's LIKWID_EVENTS names one: one of this CPU's likwid groups ("BRANCH", read
 * from the installed likwid or $LIKWID_PERFGROUPS), or likwid's own event set
 * ("INSTR_RETIRED_ANY:FIXC0,CPU_CLK_UNHALTED_CORE:FIXC1", named "Custom", without metrics). open:
 * 0; ENOENT where `text` is neither (an event list in perf's syntax), EINVAL where the group's file
 * cannot be read. Its counters' events in perf's names, comma-separated in counter order (what to
 * count), each counter's likwid event and counter names, and its metrics (likwid's names, with
 * their unit: "Runtime (RDTSC) [s]"), whose values come from the counters' counts in that order
 * and the measured time. Strings valid until close. Version 7. */
typedef struct perfmon_likwid_group perfmon_likwid_group;
int perfmon_likwid_group_open(const char* text, perfmon_likwid_group** out);
const char* perfmon_likwid_group_name(const perfmon_likwid_group* group);
const char* perfmon_likwid_group_events(const perfmon_likwid_group* group);
size_t perfmon_likwid_group_event_count(const perfmon_likwid_group* group);
const char* perfmon_likwid_group_event_name(const perfmon_likwid_group* group, size_t event);
const char* perfmon_likwid_group_counter_name(const perfmon_likwid_group* group, size_t event);
size_t perfmon_likwid_group_metric_count(const perfmon_likwid_group* group);
const char* perfmon_likwid_group_metric_name(const perfmon_likwid_group* group, size_t metric);
double perfmon_likwid_group_metric_value(const perfmon_likwid_group* group, size_t metric, const double* counts,
                                         double seconds);
void perfmon_likwid_group_close(perfmon_likwid_group* group);

/* ---- Marked regions (perfmon/marked_regions.hpp): likwid's and PAPI's region models -------- */

/* Regions a program marks in its own code, counted per thread: each thread's counters are opened on
 * its first call and count from then on; a region's start and stop read them. `groups`: one event
 * list (perf's syntax) per group; one group counts at a time (next_group). */
typedef struct perfmon_markers perfmon_markers;
int perfmon_markers_open(const char* const* groups, size_t count, perfmon_markers** markers);
void perfmon_markers_close(perfmon_markers* markers);
/* 0; PERFMON_MARKER_ALREADY_STARTED (start again: the start is taken anew), PERFMON_MARKER_NOT_STARTED
 * (stop of a region not started; reset of an unknown one), PERFMON_MARKER_RUNNING (reset of a
 * started region); or an errno (EIO: the thread's counters could not be opened, see
 * perfmon_markers_error). Calls of a thread's own regions. */
#define PERFMON_MARKER_ALREADY_STARTED (-1)
#define PERFMON_MARKER_NOT_STARTED (-2)
#define PERFMON_MARKER_RUNNING (-3)
int perfmon_markers_register(perfmon_markers* markers, const char* tag);
int perfmon_markers_start(perfmon_markers* markers, const char* tag);
int perfmon_markers_stop(perfmon_markers* markers, const char* tag);
int perfmon_markers_reset(perfmon_markers* markers, const char* tag);
/* The calling thread's sums of the region in the active group: up to *value_count values (scaled
 * counts; *value_count set to those given), its seconds and stops. ENOENT where never stopped. */
int perfmon_markers_get(perfmon_markers* markers, const char* tag, double* values, size_t* value_count, double* seconds,
                        uint64_t* count);
int perfmon_markers_next_group(perfmon_markers* markers);
size_t perfmon_markers_group_count(const perfmon_markers* markers);
size_t perfmon_markers_active_group(const perfmon_markers* markers);
size_t perfmon_markers_event_count(const perfmon_markers* markers, size_t group);
/* An event's name as written (owned by the handle), NULL past the end. */
const char* perfmon_markers_event_name(const perfmon_markers* markers, size_t group, size_t event);
/* Why a thread's counters could not be opened (the first reason), "" when they all opened. */
const char* perfmon_markers_error(const perfmon_markers* markers);

/* Every thread's regions, taken at once (perfmon_markers_take_results), then read one by one. */
typedef struct perfmon_marked_result {
  const char* tag; /* owned by the handle until the next take */
  size_t group;
  pid_t tid;
  size_t thread; /* in the order threads first marked */
  int cpu;       /* where the region last started */
  uint64_t count;
  double seconds;
  size_t value_count;
  const perfmon_value* values; /* raw, enabled, running per event of the group */
  int emulated;                /* counted on perfmon's emulated CPU, not the PMU */
} perfmon_marked_result;
size_t perfmon_markers_take_results(perfmon_markers* markers);
int perfmon_markers_result(const perfmon_markers* markers, size_t index, perfmon_marked_result* result);
/* Every thread's regions so far written to `path` in perfmon's file of marker results, the one
 * perfmon stat --markers and perfmon bench --markers read (PERFMON_MARKERS_JSON): whole, or not
 * at all. 0, or an errno (perfmon_last_error says why). */
int perfmon_markers_write_results(const perfmon_markers* markers, const char* path);

/* ---- perfmon2's default sampling format (docs/sampling.md) ----------------------------------- */

/* A sample's header in the format's buffer: perfmon2's pfm_default_smpl_entry_t, whose padding
 * carries the body's size. */
typedef struct perfmon_default_entry {
  int32_t pid, tid;
  uint16_t event; /* what overflowed (perfmon2: ovfl_pmd) */
  uint16_t set;
  uint16_t cpu;
  uint16_t body_words; /* 64-bit words after the entry (set by the writer) */
  uint64_t last_reset_val, tstamp, ip;
} perfmon_default_entry;

#define PERFMON_DEFAULT_NO_HEADER 1 /* samples are their body only */
#define PERFMON_DEFAULT_IP_HEADER 2 /* a sample's header is its IP */

/* The format's writer over `memory` (8-byte aligned, `bytes` long, owned and kept by the caller,
 * which may share it, as a mapped file): lays the buffer's header out. EINVAL for unknown flags or
 * memory that cannot hold the header and one sample of `largest_body_words`. */
typedef struct perfmon_default_buffer perfmon_default_buffer;
int perfmon_default_buffer_open(void* memory, size_t bytes, uint32_t flags, size_t largest_body_words,
                                perfmon_default_buffer** buffer);
void perfmon_default_buffer_close(perfmon_default_buffer* buffer);
/* Writes a sample: 0 written; 1 written, and the buffer is full now (perfmon2's post check: the
 * next sample might not fit); -1 not written (the buffer is full, or a short header's body differs
 * from the first sample's). Allocates nothing: async-signal-safe. */
int perfmon_default_buffer_append(perfmon_default_buffer* buffer, const perfmon_default_entry* entry,
                                  const uint64_t* body, size_t body_words);
/* Empties the buffer (count 0, the offset after the header); async-signal-safe. */
void perfmon_default_buffer_restart(perfmon_default_buffer* buffer);

#ifdef __cplusplus
}
#endif

#endif /* PERFMON_PERFMON_H */
