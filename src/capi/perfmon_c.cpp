// The C ABI (perfmon/perfmon.h) over the C++ library: every call catches what the library throws
// and turns it into an errno and a sentence kept per thread.
#include "perfmon/perfmon.h"

#include <algorithm>
#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <new>
#include <optional>
#include <string>
#include <vector>

#include "perfmon/catalog.hpp"
#include "perfmon/error.hpp"
#include "perfmon/event_sets.hpp"
#include "perfmon/perf_data.hpp"
#include "perfmon/sampler.hpp"
#include "perfmon/sampling_format.hpp"
#include "perfmon/session.hpp"
#include "perfmon/system_info.hpp"
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

struct perfmon_recording {
  perfmon_recording(int fd, std::vector<perfmon::PerfDataEvent> events) : file(fd, std::move(events)), records(file) {}
  perfmon::PerfDataWriter file;
  perfmon::PerfDataRecordWriter records;
  bool finished = false;
};

namespace {

thread_local std::string last_error;

int errno_of(const perfmon::Error& error) {
  if (error.errnum() != 0) return error.errnum();
  switch (error.kind()) {
    case perfmon::ErrorKind::UnknownEvent:
      return ENOENT;
    case perfmon::ErrorKind::Unsupported:
    case perfmon::ErrorKind::OtherCpuModel:
      return EOPNOTSUPP;
    case perfmon::ErrorKind::Permission:
      return EACCES;
    case perfmon::ErrorKind::NoSuchTarget:
      return ESRCH;
    case perfmon::ErrorKind::Limit:
      return EMFILE;
    default:
      return EINVAL;
  }
}

int fail(int err, const char* text) noexcept {
  try {
    last_error = text;
  } catch (...) {
    // No memory for the sentence: the errno says enough.
  }
  return err;
}

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

int control(int err, const char* text) noexcept {
  return err == 0 ? 0 : fail(err, text);
}

perfmon::Target target_of(const perfmon_target* target) {
  if (target == nullptr) return perfmon::Target::self();
  switch (target->kind) {
    case PERFMON_TARGET_SELF:
      return perfmon::Target::self();
    case PERFMON_TARGET_THREAD:
      return perfmon::Target::thread(target->id);
    case PERFMON_TARGET_PROCESS:
      return perfmon::Target::process(target->id);
    case PERFMON_TARGET_CPUS:
      if (target->cpus == nullptr) return perfmon::Target::all_cpus();
      return perfmon::Target::cpu_list(std::vector<int>(target->cpus, target->cpus + target->cpu_count));
  }
  throw perfmon::Error(perfmon::ErrorKind::InvalidArgument,
                       "unknown target kind " + std::to_string(static_cast<int>(target->kind)) + ".", EINVAL);
}

// Copies `text` into a fixed field, cut to fit and always terminated.
void copy_string(char* field, std::size_t size, const std::string& text) noexcept {
  const std::size_t n = std::min(size - 1, text.size());
  std::memcpy(field, text.data(), n);
  field[n] = '\0';
}

// An overflow record as the C ABI hands it out (no callchain).
perfmon_sample sample_of(std::size_t event, const perfmon::Sample& taken) noexcept {
  return perfmon_sample{event, taken.ip, taken.pid, taken.tid, taken.time, taken.cpu, 0, 0, nullptr, 0};
}

int null_argument(const char* what) noexcept {
  return fail(EINVAL, what);
}

}  // namespace

extern "C" {

int perfmon_api_version(void) {
  return PERFMON_API_VERSION;
}

const char* perfmon_version(void) {
  return PERFMON_VERSION;
}

const char* perfmon_last_error(void) {
  return last_error.c_str();
}

perfmon_catalog* perfmon_catalog_new(void) {
  perfmon_catalog* catalog = nullptr;
  guarded([&] {
    catalog = std::make_unique<perfmon_catalog>().release();
    return 0;
  });
  return catalog;
}

void perfmon_catalog_free(perfmon_catalog* catalog) {
  std::unique_ptr<perfmon_catalog> owned(catalog);
}

int perfmon_catalog_check(const perfmon_catalog* catalog, const char* events) {
  if (catalog == nullptr || events == nullptr) return null_argument("a catalogue and an event list are needed.");
  return guarded([&] {
    (void)catalog->catalog.parse(events);
    return 0;
  });
}

int perfmon_catalog_list(const perfmon_catalog* catalog, const char* source, perfmon_event_callback callback,
                         void* context) {
  if (catalog == nullptr || callback == nullptr) return null_argument("a catalogue and a callback are needed.");
  return guarded([&] {
    for (const perfmon::CatalogEntry& entry : catalog->catalog.entries())
      if (source == nullptr || entry.source == source) callback(context, entry.name.c_str(), entry.description.c_str());
    return 0;
  });
}

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

int perfmon_session_take_overflow(perfmon_session* session, int fd, perfmon_sample* sample) {
  if (session == nullptr || sample == nullptr) return EINVAL;  // no sentence: this may run in a signal handler
  std::size_t event = 0;
  perfmon::Sample taken;
  if (!session->session.take_overflow(fd, event, taken)) return ENOENT;
  *sample = sample_of(event, taken);
  return 0;
}

namespace {

perfmon::OverflowAction call_overflow_hook(void* user, std::size_t set, std::size_t event,
                                           const perfmon::Sample& record) {
  const perfmon_event_sets& sets = *static_cast<const perfmon_event_sets*>(user);
  const perfmon_sample sample = sample_of(event, record);
  return sets.hook(sets.hook_context, set, &sample) == PERFMON_OVERFLOW_HOLD ? perfmon::OverflowAction::Hold
                                                                             : perfmon::OverflowAction::Continue;
}

bool valid_set(const perfmon_event_sets* sets, std::size_t set) noexcept {
  return sets != nullptr && set < sets->sets->set_count();
}

}  // namespace

int perfmon_event_sets_open(const perfmon_catalog* catalog, const perfmon_set_definition* sets, size_t count,
                            const perfmon_target* target, const perfmon_event_sets_options* options,
                            perfmon_event_sets** event_sets) {
  if (catalog == nullptr || (sets == nullptr && count != 0) || event_sets == nullptr)
    return null_argument("a catalogue, the sets and a place for them are needed.");
  *event_sets = nullptr;
  return guarded([&] {
    std::vector<perfmon::EventSetDefinition> definitions(count);
    for (std::size_t i = 0; i < count; ++i) {
      const perfmon_set_definition& given = sets[i];
      perfmon::EventSetDefinition& definition = definitions[i];
      if (given.events == nullptr)
        throw perfmon::Error(perfmon::ErrorKind::InvalidArgument,
                             "event set " + std::to_string(given.id) + " has no event list.", EINVAL);
      definition.id = given.id;
      definition.groups = catalog->catalog.parse(given.events);
      if (given.explicit_next) definition.next = given.next;
      definition.timeout = std::chrono::nanoseconds(given.timeout_ns);
      for (std::size_t t = 0; t < given.trigger_count; ++t)
        definition.triggers.push_back({given.triggers[t].event, given.triggers[t].period, given.triggers[t].overflows});
      std::size_t index = 0;
      for (perfmon::EventGroup& group : definition.groups)
        for (perfmon::Event& event : group.events) {
          if (index < given.overflow_period_count && given.overflow_periods != nullptr &&
              given.overflow_periods[index] != 0) {
            event.attr.sample_period = given.overflow_periods[index];
            event.attr.freq = 0;
          }
          ++index;
        }
    }
    auto handle = std::make_unique<perfmon_event_sets>();
    perfmon::EventSetOptions settings;
    if (options != nullptr) {
      settings.session.inherit = options->no_inherit == 0;
      settings.session.skip_unsupported = options->fail_unsupported == 0;
      settings.session.overflow_thread = options->overflow_thread;
      settings.first = options->first;
      settings.signal = options->signal;
      if (options->caller_switches) settings.switch_in_handler = false;
      if (options->on_overflow != nullptr) {
        handle->hook = options->on_overflow;
        handle->hook_context = options->hook_context;
        settings.on_overflow = {&call_overflow_hook, handle.get()};
      }
    }
    handle->sets.emplace(std::move(definitions), target_of(target), settings);
    *event_sets = handle.release();
    return 0;
  });
}

void perfmon_event_sets_close(perfmon_event_sets* event_sets) {
  std::unique_ptr<perfmon_event_sets> owned(event_sets);
}

int perfmon_event_sets_start(perfmon_event_sets* event_sets) {
  if (event_sets == nullptr) return null_argument("no event sets.");
  return guarded([&] {
    event_sets->sets->start();
    return 0;
  });
}

int perfmon_event_sets_stop(perfmon_event_sets* event_sets) {
  if (event_sets == nullptr) return null_argument("no event sets.");
  return guarded([&] {
    event_sets->sets->stop();
    return 0;
  });
}

int perfmon_event_sets_reset(perfmon_event_sets* event_sets) {
  if (event_sets == nullptr) return null_argument("no event sets.");
  return guarded([&] {
    event_sets->sets->reset();
    return 0;
  });
}

int perfmon_event_sets_read(perfmon_event_sets* event_sets) {
  if (event_sets == nullptr) return EINVAL;  // no sentence: this may run in the hook
  return event_sets->sets->read();
}

int perfmon_event_sets_read_set(perfmon_event_sets* event_sets, size_t set) {
  if (event_sets == nullptr) return EINVAL;  // no sentence: this may run in the hook
  return event_sets->sets->read(set);
}

int perfmon_event_sets_switch_now(perfmon_event_sets* event_sets) {
  if (event_sets == nullptr) return null_argument("no event sets.");
  return control(event_sets->sets->switch_now(), "cannot switch the event sets: an ioctl failed.");
}

int perfmon_event_sets_switch_to(perfmon_event_sets* event_sets, size_t set) {
  if (!valid_set(event_sets, set)) return null_argument("no such event set.");
  return control(event_sets->sets->switch_to(set), "cannot switch the event sets: an ioctl failed.");
}

int perfmon_event_sets_resume(perfmon_event_sets* event_sets) {
  if (event_sets == nullptr) return null_argument("no event sets.");
  return control(event_sets->sets->resume(), "cannot resume the event sets: an ioctl failed.");
}

int perfmon_event_sets_hold(perfmon_event_sets* event_sets) {
  if (event_sets == nullptr) return null_argument("no event sets.");
  return control(event_sets->sets->hold(), "cannot hold the event sets: an ioctl failed.");
}

int perfmon_event_sets_held(const perfmon_event_sets* event_sets) {
  return event_sets != nullptr && event_sets->sets->held() ? 1 : 0;
}

int perfmon_event_sets_handle_overflow(perfmon_event_sets* event_sets, int signal, int fd) {
  if (event_sets == nullptr) return 0;
  siginfo_t info{};
  info.si_signo = signal;
  info.si_fd = fd;
  return event_sets->sets->handle_overflow(info) ? 1 : 0;
}

int perfmon_event_sets_handle_waiting(perfmon_event_sets* event_sets) {
  return event_sets != nullptr && event_sets->sets->handle_waiting_overflows() ? 1 : 0;
}

int perfmon_event_sets_service(perfmon_event_sets* event_sets, int timeout_ms) {
  if (event_sets == nullptr) return 0;
  int switched = 0;
  guarded([&] {
    switched = event_sets->sets->service(timeout_ms);
    return 0;
  });
  return switched;
}

int perfmon_event_sets_signal(const perfmon_event_sets* event_sets) {
  return event_sets == nullptr ? 0 : event_sets->sets->signal_number();
}

size_t perfmon_event_sets_count(const perfmon_event_sets* event_sets) {
  return event_sets == nullptr ? 0 : event_sets->sets->set_count();
}

size_t perfmon_event_sets_active(const perfmon_event_sets* event_sets) {
  return event_sets == nullptr ? 0 : event_sets->sets->active_set();
}

uint64_t perfmon_event_sets_switches(const perfmon_event_sets* event_sets) {
  return event_sets == nullptr ? 0 : event_sets->sets->switches();
}

uint32_t perfmon_event_sets_overflows_left(const perfmon_event_sets* event_sets, size_t set, size_t trigger) {
  return valid_set(event_sets, set) ? event_sets->sets->overflows_left(set, trigger) : 0;
}

int perfmon_event_sets_info(const perfmon_event_sets* event_sets, size_t set, perfmon_set_info* info) {
  if (!valid_set(event_sets, set) || info == nullptr) return null_argument("no such event set, or no place for it.");
  const perfmon::EventSetInfo got = event_sets->sets->info(set);
  *info = perfmon_set_info{got.id,
                           got.next,
                           got.runs,
                           got.active_ns,
                           got.last_switch_triggers,
                           static_cast<std::uint64_t>(got.timeout.count()),
                           static_cast<std::uint64_t>(got.timeout_left.count())};
  return 0;
}

size_t perfmon_event_sets_event_count(const perfmon_event_sets* event_sets, size_t set) {
  return valid_set(event_sets, set) ? event_sets->sets->event_count(set) : 0;
}

int perfmon_event_sets_value(const perfmon_event_sets* event_sets, size_t set, size_t event, perfmon_value* value) {
  if (!valid_set(event_sets, set) || value == nullptr || event >= event_sets->sets->event_count(set))
    return EINVAL;  // no sentence: this may run in the hook
  const perfmon::CounterValue counted = event_sets->sets->value(set, event);
  *value = {counted.raw, counted.enabled, counted.running, counted.lost, counted.scaled()};
  return 0;
}

int perfmon_event_sets_fd(const perfmon_event_sets* event_sets, size_t set, size_t event, size_t location) {
  return valid_set(event_sets, set) ? event_sets->sets->fd(set, event, location) : -1;
}

int perfmon_cpu_info_get(const perfmon_catalog* catalog, perfmon_cpu_info* info) {
  if (catalog == nullptr || info == nullptr) return null_argument("a catalogue and a place for the answer are needed.");
  return guarded([&] {
    const perfmon::SystemInfo cpu = perfmon::collect_cpu_info();
    *info = perfmon_cpu_info{};
    copy_string(info->vendor, sizeof info->vendor, cpu.cpu_vendor);
    copy_string(info->model, sizeof info->model, cpu.cpu_model);
    info->family = cpu.family.value_or(-1);
    info->model_number = cpu.model.value_or(-1);
    for (const perfmon::PmuSummary& pmu : catalog->catalog.pmus()) {
      if (!pmu.core) continue;
      info->hardware_pmu = 1;
      copy_string(info->pmu_name, sizeof info->pmu_name, pmu.name);
      break;
    }
    info->general_counters = info->general_width = info->fixed_counters = -1;
    if (cpu.counters) {
      info->general_counters = cpu.counters->general_purpose.value_or(-1);
      info->general_width = cpu.counters->general_width.value_or(-1);
      info->fixed_counters = cpu.counters->fixed.value_or(-1);
    }
    return 0;
  });
}

int perfmon_sampler_open(const perfmon_catalog* catalog, const char* events, const perfmon_target* target,
                         const perfmon_sampler_options* options, perfmon_sampler** sampler) {
  if (catalog == nullptr || events == nullptr || sampler == nullptr || options == nullptr)
    return null_argument("a catalogue, an event list, options and a place for the sampler are needed.");
  *sampler = nullptr;
  return guarded([&] {
    perfmon::SamplingOptions settings;
    settings.period = options->period;
    settings.frequency = options->frequency;
    if (options->sample_type != 0) settings.sample_type = options->sample_type;
    if (options->ring_pages != 0) settings.ring_pages = options->ring_pages;
    settings.inherit = options->no_inherit == 0;
    settings.task_records = options->task_records != 0;
    *sampler =
        std::make_unique<perfmon_sampler>(perfmon::Sampler(catalog->catalog.parse(events), target_of(target), settings))
            .release();
    return 0;
  });
}

void perfmon_sampler_close(perfmon_sampler* sampler) {
  std::unique_ptr<perfmon_sampler> owned(sampler);
}

int perfmon_sampler_start(perfmon_sampler* sampler) {
  if (sampler == nullptr) return null_argument("no sampler.");
  return guarded([&] {
    sampler->sampler.start();
    return 0;
  });
}

int perfmon_sampler_stop(perfmon_sampler* sampler) {
  if (sampler == nullptr) return null_argument("no sampler.");
  return guarded([&] {
    sampler->sampler.stop();
    return 0;
  });
}

int perfmon_sampler_drain(perfmon_sampler* sampler, perfmon_sample_callback callback, void* context, size_t* samples) {
  if (sampler == nullptr || callback == nullptr) return null_argument("a sampler and a callback are needed.");
  struct Forward : perfmon::SampleHandler {
    perfmon_sample_callback callback;
    void* context;
    std::size_t samples = 0;
    void sample(std::size_t event, const perfmon::Sample& sample) override {
      const perfmon_sample out{event,
                               sample.ip,
                               sample.pid,
                               sample.tid,
                               sample.time,
                               sample.cpu,
                               sample.period,
                               sample.addr,
                               sample.callchain.data(),
                               sample.callchain.size()};
      ++samples;
      callback(context, &out);
    }
  } forward;
  forward.callback = callback;
  forward.context = context;
  const int status = guarded([&] {
    sampler->sampler.drain(forward);
    return 0;
  });
  if (samples != nullptr) *samples = forward.samples;
  return status;
}

uint64_t perfmon_sampler_lost(const perfmon_sampler* sampler) {
  return sampler == nullptr ? 0 : sampler->sampler.stats().lost;
}

int perfmon_recording_open(int fd, perfmon_sampler* const* samplers, size_t count, perfmon_recording** recording) {
  if (recording == nullptr || (samplers == nullptr && count > 0))
    return null_argument("samplers and a place for the recording are needed.");
  *recording = nullptr;
  return guarded([&] {
    std::vector<perfmon::PerfDataEvent> events;
    for (size_t k = 0; k < count; ++k) {
      const perfmon::Sampler& sampler = samplers[k]->sampler;
      for (std::size_t e = 0; e < sampler.event_count(); ++e)
        events.push_back({sampler.event(e).name, sampler.opened_attr(e), sampler.ids(e)});
    }
    auto made = std::make_unique<perfmon_recording>(fd, std::move(events));
    made->file.write_kernel_map();
    *recording = made.release();
    return 0;
  });
}

int perfmon_recording_add_process(perfmon_recording* recording, pid_t pid) {
  if (recording == nullptr) return null_argument("no recording.");
  return guarded([&] {
    recording->file.write_process(pid);
    return 0;
  });
}

int perfmon_recording_drain(perfmon_recording* recording, perfmon_sampler* sampler) {
  if (recording == nullptr || sampler == nullptr) return null_argument("a recording and a sampler are needed.");
  return guarded([&] {
    sampler->sampler.drain(recording->records);
    recording->file.finish_round();
    return 0;
  });
}

int perfmon_recording_finish(perfmon_recording* recording, const char* command_line) {
  if (recording == nullptr) return null_argument("no recording.");
  return guarded([&] {
    std::vector<std::string> words;
    std::string word;
    for (const char* c = command_line != nullptr ? command_line : ""; *c != '\0'; ++c) {
      if (*c != ' ') {
        word += *c;
      } else if (!word.empty()) {
        words.push_back(std::move(word));
        word.clear();
      }
    }
    if (!word.empty()) words.push_back(std::move(word));
    recording->file.finish(perfmon::describe_this_host(std::move(words)));
    recording->finished = true;
    return 0;
  });
}

void perfmon_recording_close(perfmon_recording* recording) {
  std::unique_ptr<perfmon_recording> owned(recording);
}

}  // extern "C"

// The C entry is the C++ one, field for field.
static_assert(sizeof(perfmon_default_entry) == sizeof(perfmon::DefaultFormatEntry));
static_assert(offsetof(perfmon_default_entry, body_words) == offsetof(perfmon::DefaultFormatEntry, body_words));
static_assert(offsetof(perfmon_default_entry, ip) == offsetof(perfmon::DefaultFormatEntry, ip));

int perfmon_default_buffer_open(void* memory, size_t bytes, uint32_t flags, size_t largest_body_words,
                                perfmon_default_buffer** buffer) {
  if (buffer == nullptr || memory == nullptr) return null_argument("memory and a place for the buffer are needed.");
  *buffer = nullptr;
  if (reinterpret_cast<std::uintptr_t>(memory) % alignof(std::uint64_t) != 0)
    return fail(EINVAL, "the buffer's memory must be 8-byte aligned.");
  return guarded([&] {
    *buffer = std::make_unique<perfmon_default_buffer>(
                  perfmon::DefaultFormatBuffer({static_cast<std::byte*>(memory), bytes}, flags, largest_body_words))
                  .release();
    return 0;
  });
}

void perfmon_default_buffer_close(perfmon_default_buffer* buffer) {
  std::unique_ptr<perfmon_default_buffer> owned(buffer);
}

int perfmon_default_buffer_append(perfmon_default_buffer* buffer, const perfmon_default_entry* entry,
                                  const uint64_t* body, size_t body_words) {
  if (buffer == nullptr || entry == nullptr || (body == nullptr && body_words > 0)) return -1;
  perfmon::DefaultFormatEntry written;
  std::memcpy(&written, entry, sizeof written);
  switch (buffer->buffer.append(written, {body, body_words})) {
    case perfmon::DefaultFormatBuffer::Append::kWritten:
      return 0;
    case perfmon::DefaultFormatBuffer::Append::kFilled:
      return 1;
    case perfmon::DefaultFormatBuffer::Append::kDropped:
      break;
  }
  return -1;
}

void perfmon_default_buffer_restart(perfmon_default_buffer* buffer) {
  if (buffer != nullptr) buffer->buffer.restart();
}
