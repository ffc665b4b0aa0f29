// SPDX-License-Identifier: Apache-2.0
// The C ABI: counting sessions.
#include "capi/handles.hpp"

#include <cstring>

using namespace perfmon::capi;

extern "C" {

// Version 2 of perfmon_session_open, the default; version 1 below reads the shorter options.
extern "C" int perfmon_session_open_v2(const perfmon_catalog* catalog, const char* events, const perfmon_target* target,
                                       const perfmon_session_options* options, perfmon_session** session) {
  if (catalog == nullptr || events == nullptr || session == nullptr)
    return null_argument("a catalogue, an event list and a place for the session are needed.");
  *session = nullptr;
  return guarded([&] {
    perfmon::SessionOptions settings;
    if (options != nullptr) {
      settings.inherit = options->no_inherit == 0;
      settings.skip_unsupported = options->fail_unsupported == 0;
      settings.user_space_reads = options->user_space_reads != 0;
      settings.strict = options->strict != 0;
      settings.error_bars = options->error_bars != 0;
      if (options->overflow_periods != nullptr)
        settings.overflow_periods.assign(options->overflow_periods,
                                         options->overflow_periods + options->overflow_period_count);
      settings.overflow_signal = options->overflow_signal;
      settings.stop_after = options->stop_after;
      settings.overflow_thread = options->overflow_thread;
      settings.overflow_records = options->overflow_records != 0;
    }
    *session = std::make_unique<perfmon_session>(
                   perfmon::CounterSession(catalog->catalog.parse(events), target_of(target), settings))
                   .release();
    return 0;
  });
}

// Version 1's options ended at stop_after.
extern "C" int perfmon_session_open_v1(const perfmon_catalog* catalog, const char* events, const perfmon_target* target,
                                       const perfmon_session_options* options, perfmon_session** session) {
  perfmon_session_options longer{};
  if (options != nullptr) std::memcpy(&longer, options, offsetof(perfmon_session_options, overflow_thread));
  return perfmon_session_open_v2(catalog, events, target, options != nullptr ? &longer : nullptr, session);
}
__asm__(".symver perfmon_session_open_v1, perfmon_session_open@PERFMON_1");
__asm__(".symver perfmon_session_open_v2, perfmon_session_open@@PERFMON_2");

void perfmon_session_close(perfmon_session* session) {
  std::unique_ptr<perfmon_session> owned(session);
}

int perfmon_session_start(perfmon_session* session) {
  if (session == nullptr) return null_argument("no session.");
  return guarded([&] {
    session->session.start();
    return 0;
  });
}

int perfmon_session_stop(perfmon_session* session) {
  if (session == nullptr) return null_argument("no session.");
  return guarded([&] {
    session->session.stop();
    return 0;
  });
}

int perfmon_session_reset(perfmon_session* session) {
  if (session == nullptr) return null_argument("no session.");
  return guarded([&] {
    session->session.reset();
    return 0;
  });
}

int perfmon_session_read(perfmon_session* session) {
  if (session == nullptr) return null_argument("no session.");
  return control(session->session.read(), "cannot read the counters: a group's read(2) failed.");
}

size_t perfmon_session_user_mode_reads(const perfmon_session* session) {
  return session == nullptr ? 0 : session->session.user_mode_reads();
}

size_t perfmon_session_event_count(const perfmon_session* session) {
  return session == nullptr ? 0 : session->session.event_count();
}

const char* perfmon_session_event_name(const perfmon_session* session, size_t index) {
  if (session == nullptr || index >= session->session.event_count()) return nullptr;
  return session->session.event(index).name.c_str();
}

int perfmon_session_supported(const perfmon_session* session, size_t index) {
  if (session == nullptr || index >= session->session.event_count()) return 0;
  return session->session.supported(index) ? 1 : 0;
}

const char* perfmon_session_unsupported_reason(const perfmon_session* session, size_t index) {
  if (session == nullptr || index >= session->session.event_count()) return nullptr;
  return session->session.unsupported_reason(index).c_str();
}

int perfmon_session_value(const perfmon_session* session, size_t index, perfmon_value* value) {
  if (session == nullptr || value == nullptr || index >= session->session.event_count())
    return null_argument("no such event in the session, or no place for its value.");
  const perfmon::CounterValue counted = session->session.value(index);
  *value = {counted.raw, counted.enabled, counted.running, counted.lost, counted.scaled()};
  return 0;
}

int perfmon_session_estimate(const perfmon_session* session, size_t index, double* value, double* standard_error) {
  if (session == nullptr || value == nullptr || standard_error == nullptr || index >= session->session.event_count())
    return null_argument("no such event in the session, or no place for its estimate.");
  const perfmon::CountEstimate estimate = session->session.estimate(index);
  *value = estimate.value;
  *standard_error = estimate.standard_error.value_or(-1.0);
  return 0;
}

int perfmon_session_calibrate(perfmon_session* session, int repetitions) {
  if (session == nullptr) return null_argument("no session.");
  return guarded([&] {
    session->session.calibrate(repetitions);
    return 0;
  });
}

uint64_t perfmon_session_overhead(const perfmon_session* session, size_t index) {
  if (session == nullptr || index >= session->session.event_count()) return 0;
  return session->session.overhead(index);
}

int perfmon_session_set_filter(perfmon_session* session, size_t index, const char* filter) {
  if (session == nullptr || filter == nullptr) return null_argument("a session and a filter are needed.");
  return guarded([&] {
    session->session.set_filter(index, filter);
    return 0;
  });
}

int perfmon_session_fd(const perfmon_session* session, size_t index, size_t location) {
  if (session == nullptr) return -1;
  return session->session.fd(index, location);
}

long perfmon_session_event_of_fd(const perfmon_session* session, int fd) {
  return session == nullptr ? -1 : session->session.event_of_fd(fd);
}

int perfmon_session_rearm(perfmon_session* session, size_t index, uint64_t period, int overflows) {
  if (session == nullptr) return EINVAL;  // no sentence: this may run in a signal handler
  return session->session.rearm(index, period, overflows);
}

int perfmon_session_control_event(perfmon_session* session, size_t index, perfmon_event_control control) {
  if (session == nullptr) return EINVAL;  // no sentence: this may run in a signal handler
  return perfmon::control_event(session->session, index, event_control(control));
}

int perfmon_session_set_period(perfmon_session* session, size_t index, uint64_t period) {
  if (session == nullptr) return EINVAL;
  return perfmon::set_overflow_period(session->session, index, period);
}

int perfmon_session_take_overflow(perfmon_session* session, int fd, perfmon_sample* sample) {
  if (session == nullptr || sample == nullptr) return EINVAL;  // no sentence: this may run in a signal handler
  std::size_t event = 0;
  perfmon::Sample taken;
  if (!session->session.take_overflow(fd, event, taken)) return ENOENT;
  *sample = sample_of(event, taken);
  return 0;
}

}  // extern "C"
