// SPDX-License-Identifier: Apache-2.0
// The C ABI: perfmon2's event sets.
#include "capi/handles.hpp"

using namespace perfmon::capi;

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

extern "C" {

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

int perfmon_event_sets_control_event(perfmon_event_sets* event_sets, size_t set, size_t event,
                                     perfmon_event_control control) {
  if (!valid_set(event_sets, set)) return EINVAL;  // no sentence: this may run in a signal handler
  return perfmon::control_event(*event_sets->sets, set, event, event_control(control));
}

int perfmon_event_sets_set_period(perfmon_event_sets* event_sets, size_t set, size_t event, uint64_t period) {
  if (!valid_set(event_sets, set)) return EINVAL;
  return perfmon::set_overflow_period(*event_sets->sets, set, event, period);
}

}  // extern "C"
