// SPDX-License-Identifier: Apache-2.0
// The C ABI's handles and what every part of it shares: the handles hold the C++ objects, and
// every call catches what the library throws and turns it into an errno and a sentence kept per
// thread (guarded()). One file a handle: library.cpp, catalog.cpp, session.cpp, event_sets.cpp,
// sampler.cpp, recording.cpp, default_buffer.cpp.
#pragma once

#include <cerrno>
#include <cstddef>
#include <exception>
#include <memory>
#include <new>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "perfmon/catalog.hpp"
#include "perfmon/error.hpp"
#include "perfmon/event_control.hpp"
#include "perfmon/event_sets.hpp"
#include "perfmon/likwid_group.hpp"
#include "perfmon/metric_table.hpp"
#include "perfmon/perf_data.hpp"
#include "perfmon/perfmon.h"
#include "perfmon/recording.hpp"
#include "perfmon/sampler.hpp"
#include "perfmon/sampling_format.hpp"
#include "perfmon/session.hpp"
#include "perfmon/target.hpp"

// The handles: owned by the caller between open and close (unique_ptr::release and back).
struct perfmon_catalog {
  perfmon::EventCatalog catalog;
};
struct perfmon_session {
  explicit perfmon_session(perfmon::CounterSession opened) : session(std::move(opened)) {}
  perfmon::CounterSession session;
};
struct perfmon_sampler {
  explicit perfmon_sampler(perfmon::Sampler opened) : sampler(std::move(opened)) {}
  perfmon::Sampler sampler;
};
// The sets are made once the handle exists: the hook's context is the handle.
struct perfmon_event_sets {
  std::optional<perfmon::EventSets> sets;
  perfmon_overflow_hook hook = nullptr;
  void* hook_context = nullptr;
};
struct perfmon_default_buffer {
  explicit perfmon_default_buffer(const perfmon::DefaultFormatBuffer& written) : buffer(written) {}
  perfmon::DefaultFormatBuffer buffer;
};

// A PAPI preset compiled: its expression over native events, and those events as one list.
struct perfmon_papi_preset {
  explicit perfmon_papi_preset(perfmon::MetricExpression parsed) : expression(std::move(parsed)) {}
  perfmon::MetricExpression expression;
  std::string events;
};

// One of likwid's groups: its counters' events (in perf's names, in counter order), and its
// metrics compiled over them.
struct perfmon_likwid_group {
  perfmon::LikwidGroup group;
  std::string events;                // the counters' events, comma-separated
  std::vector<std::string> counted;  // each counter's event
  perfmon::MetricTable table;
  std::optional<perfmon::MetricSet> set;
  std::vector<std::string> metric_names;  // likwid's: "CPI", "Runtime (RDTSC) [s]"
};

struct perfmon_recording {
  perfmon_recording(int fd, std::vector<perfmon::Sampler*> samplers) : recording(fd, std::move(samplers)) {}
  perfmon::Recording recording;
  bool finished = false;
};

namespace perfmon::capi {

// The C enum as the C++ one (an unknown value disables nothing: it zeroes nothing either).
inline perfmon::EventControl event_control(perfmon_event_control control) noexcept {
  switch (control) {
    case PERFMON_EVENT_ENABLE:
      return perfmon::EventControl::Enable;
    case PERFMON_EVENT_ZERO:
      return perfmon::EventControl::Zero;
    case PERFMON_EVENT_DISABLE:
      break;
  }
  return perfmon::EventControl::Disable;
}

// The errno a library error stands for.
int errno_of(const perfmon::Error& error);
// Keeps `text` as the thread's last error (perfmon_last_error) and returns `err`.
int fail(int err, const char* text) noexcept;

// Runs `body`, turning anything it throws into an errno and the thread's last error.
template <typename Body>
int guarded(Body&& body) noexcept {
  try {
    return body();
  } catch (const perfmon::Error& error) {
    return fail(errno_of(error), error.what());
  } catch (const std::bad_alloc&) {
    return fail(ENOMEM, "out of memory.");
  } catch (const std::exception& error) {
    return fail(EINVAL, error.what());
  } catch (...) {
    return fail(EINVAL, "unexpected failure.");
  }
}

// 0, or `err` with `text` as the thread's last error.
int control(int err, const char* text) noexcept;
// The C target as the library's; throws perfmon::Error for an unknown kind.
perfmon::Target target_of(const perfmon_target* target);
// Copies `text` into a fixed field, cut to fit and always terminated.
void copy_string(char* field, std::size_t size, const std::string& text) noexcept;
// An overflow record as the C ABI hands it out (no callchain).
perfmon_sample sample_of(std::size_t event, const perfmon::Sample& taken) noexcept;
// EINVAL, with `what` as the thread's last error.
int null_argument(const char* what) noexcept;

}  // namespace perfmon::capi
