// SPDX-License-Identifier: Apache-2.0
// EventSets: the sets built from their definitions (events, timers, triggers, routes), and the
// public calls over the switch engine (event_set_state.hpp).
#include "perfmon2/event_set_state.hpp"

namespace perfmon {

using namespace perfmon2;

EventSets::EventSets(std::vector<EventSetDefinition> definitions, const Target& target, EventSetOptions options)
    : state_(std::make_unique<State>()) {
  State& s = *state_;
  if (definitions.empty()) throw invalid("no event sets: give at least one.");
  std::sort(definitions.begin(), definitions.end(),
            [](const EventSetDefinition& a, const EventSetDefinition& b) { return a.id < b.id; });
  for (std::size_t i = 1; i < definitions.size(); ++i)
    if (definitions[i].id == definitions[i - 1].id)
      throw invalid(set_name(definitions[i].id) + " is defined twice: give each set its own id.");
  auto index_of = [&](std::uint16_t id) -> std::optional<std::size_t> {
    for (std::size_t i = 0; i < definitions.size(); ++i)
      if (definitions[i].id == id) return i;
    return std::nullopt;
  };
  const std::optional<std::size_t> first = index_of(options.first);
  if (!first) throw invalid("the first set, " + set_name(options.first) + ", is not defined.");

  s.signo = options.signal != 0 ? options.signal : SIGRTMIN + 2;
  if (s.signo < SIGRTMIN || s.signo > SIGRTMAX)
    throw invalid("signal " + std::to_string(s.signo) + " is not a real-time signal (" + std::to_string(SIGRTMIN) +
                  " to " + std::to_string(SIGRTMAX) + "); overflows must queue, one signal each.");
  s.signals_elsewhere = options.session.overflow_thread != 0;
  s.in_handler = options.switch_in_handler.value_or(target.kind == Target::Kind::Self && !s.signals_elsewhere);
  if (s.in_handler && (target.kind != Target::Kind::Self || s.signals_elsewhere))
    throw invalid(
        "switching in a signal handler needs the calling thread as the target, and its signals: the handler runs "
        "in the thread that made the sets; switch with service() or handle_overflow() instead.");
  s.hook = options.on_overflow;

  // Only the first set starts at the exec (below).
  monitor::OpenSettings settings = monitor::open_settings(target, options.session.inherit,
                                                          options.session.skip_unsupported, monitor::ReadShape::Group);
  monitor::OpenSettings timer_settings = monitor::open_settings(
      target, options.session.inherit, options.session.skip_unsupported, monitor::ReadShape::None);
  if (s.hook.function != nullptr) monitor::OverflowRecords::request(settings);

  s.sets.resize(definitions.size());
  for (std::size_t i = 0; i < definitions.size(); ++i) {
    EventSetDefinition& definition = definitions[i];
    State::Set& set = s.sets[i];
    set.id = definition.id;
    set.explicit_next = definition.next;
    if (definition.next) {
      const std::optional<std::size_t> next = index_of(*definition.next);
      if (!next)
        throw invalid(set_name(definition.id) + " names " + set_name(*definition.next) +
                      " as its next, which is not defined.");
      set.next = *next;
    } else {
      set.next = (i + 1) % definitions.size();
    }
    if (definition.groups.empty()) throw invalid(set_name(definition.id) + " has no events.");
    if (definition.timeout.count() < 0) throw invalid(set_name(definition.id) + " has a negative timeout.");
    if (definition.timeout.count() > 0 && !definition.triggers.empty())
      throw invalid(set_name(definition.id) +
                    " switches on a timeout and on overflows: a set switches one way (perfmon2 §3.1.10).");
    std::vector<Event*> flat;
    for (EventGroup& group : definition.groups)
      for (Event& event : group.events) flat.push_back(&event);
    for (std::size_t t = 0; t < definition.triggers.size(); ++t) {
      const EventSetDefinition::Trigger& trigger = definition.triggers[t];
      if (trigger.event >= flat.size())
        throw invalid(set_name(definition.id) + "'s trigger " + std::to_string(t) + " names event " +
                      std::to_string(trigger.event) + ", but the set has " + std::to_string(flat.size()) + ".");
      if (trigger.period == 0 || trigger.overflows == 0)
        throw invalid(set_name(definition.id) + "'s trigger '" + flat[trigger.event]->name +
                      "' needs a period and a number of overflows above 0.");
      flat[trigger.event]->attr.sample_period = trigger.period;
      flat[trigger.event]->attr.freq = 0;
    }
    if (definition.triggers.size() > 64) throw invalid(set_name(definition.id) + " has more than 64 triggers.");
    set.triggers = definition.triggers;
    set.overflows_left.resize(set.triggers.size());
    set.trigger_of_event.assign(flat.size(), -1);
    for (std::size_t t = 0; t < set.triggers.size(); ++t)
      set.trigger_of_event[set.triggers[t].event] = static_cast<int>(t);
    if (s.hook.function != nullptr)
      for (Event* event : flat) monitor::OverflowRecords::use_monotonic_clock(*event);

    settings.enable_on_exec = target.enable_on_exec && i == *first;
    set.matrix = std::make_unique<monitor::EventMatrix>(definition.groups, target, settings);
    for (const std::string& note : set.matrix->notes()) s.notes.push_back(set_name(set.id) + ": " + note);
    if (s.hook.function != nullptr) set.records.emplace(*set.matrix, settings);
    if (definition.timeout.count() > 0) {
      set.timeout = std::max(definition.timeout, kShortestTimeout);
      const bool cpu_wide = set.matrix->locations().cpu_wide();
      timer_settings.enable_on_exec = settings.enable_on_exec;
      set.timer = std::make_unique<monitor::EventMatrix>(
          std::vector<EventGroup>{EventGroup{{timer_event(cpu_wide, set.timeout)}}},
          timer_target(target, set.matrix->locations()), timer_settings);
    }
  }
  s.locations = &s.sets.front().matrix->locations().list();
  s.location_count = s.locations->size();
  for (State::Set& set : s.sets) {
    if (set.matrix->locations().size() != s.location_count)
      throw Error(ErrorKind::NoSuchTarget, "the target's threads changed while the event sets were opened.", ESRCH);
    const std::size_t values = set.matrix->event_count() * s.location_count;
    set.values.resize(values);
    set.slice_base.resize(values);
    set.slice_now.resize(values);
    set.slices.resize(set.matrix->event_count());
    set.slice_active.resize(s.location_count);
  }

  // Route every timer's and trigger's overflows to the signal.
  for (std::uint32_t i = 0; i < s.sets.size(); ++i) {
    State::Set& set = s.sets[i];
    if (set.timer)
      for (const monitor::OpenGroup& group : set.timer->groups())
        for (const monitor::GroupFds& at : group.at)
          for (const kernel::FileDescriptor& fd : at.fds) s.routes.push_back({fd.get(), i, -1, 0});
    if (s.hook.function != nullptr)  // every sampled event, triggers too: their records go to the hook
      for (const monitor::OpenGroup& group : set.matrix->groups())
        for (std::uint32_t location = 0; location < group.at.size(); ++location)
          for (std::size_t k = 0; k < group.at[location].fds.size(); ++k)
            if (set.matrix->event(group.at[location].events[k]).event.attr.sample_period != 0)
              s.routes.push_back({group.at[location].fds[k].get(), i, -2, location});
    for (std::size_t t = 0; t < set.triggers.size(); ++t) {
      bool opened = false;
      for (const monitor::OpenGroup& group : set.matrix->groups())
        for (std::uint32_t location = 0; location < group.at.size(); ++location)
          for (std::size_t k = 0; k < group.at[location].fds.size(); ++k)
            if (group.at[location].events[k] == set.triggers[t].event) {
              if (s.hook.function == nullptr)
                s.routes.push_back({group.at[location].fds[k].get(), i, static_cast<std::int32_t>(t), location});
              opened = true;
            }
      if (!opened)
        s.notes.push_back(set_name(set.id) + "'s trigger '" + set.matrix->event(set.triggers[t].event).event.name +
                          "' is not counted here, so it never ends the set's turn.");
    }
  }
  std::sort(s.routes.begin(), s.routes.end(), [](const State::Route& a, const State::Route& b) { return a.fd < b.fd; });
  const pid_t owner = s.signals_elsewhere ? options.session.overflow_thread : static_cast<pid_t>(::syscall(SYS_gettid));
  // The events are disabled: nothing overflows before the handler and the mask are in place.
  for (const State::Route& route : s.routes)
    if (int err = kernel::route_overflow_signal(route.fd, owner, s.signo); err != 0)
      throw Error(ErrorKind::System,
                  "cannot route the event sets' overflow signals to thread " + std::to_string(owner) + ": " +
                      std::strerror(-err) + ".",
                  -err);
  s.take_signals();
  s.activate(*first);
  if (target.enable_on_exec) s.running = 1;  // the kernel enables the first set at the exec
}

EventSets::~EventSets() {
  release();
}

EventSets::EventSets(EventSets&&) noexcept = default;

EventSets& EventSets::operator=(EventSets&& other) noexcept {
  if (this != &other) {
    release();
    state_ = std::move(other.state_);
  }
  return *this;
}

void EventSets::release() noexcept {
  State::release_signals(state_);
}

void EventSets::start() {
  State& s = *state_;
  s.enter_library();
  const int err = s.held ? 0 : s.enable(s.sets[static_cast<std::size_t>(s.active)]);
  s.running = 1;
  s.leave_library();
  monitor::EventMatrix::check_control(err, "start", "the event sets");
}

void EventSets::stop() {
  State& s = *state_;
  s.enter_library();
  State::Set& set = s.sets[static_cast<std::size_t>(s.active)];
  const int err = s.disable(set);
  if (s.running) s.close_slice(set);
  s.running = 0;
  s.pending_switch = 0;  // stopped: an overflow that came meanwhile switches nothing
  s.busy = s.busy - 1;
  monitor::EventMatrix::check_control(err, "stop", "the event sets");
}

void EventSets::reset() {
  State& s = *state_;
  s.enter_library();
  int err = 0;
  for (State::Set& set : s.sets) {
    if (int e = set.matrix->reset(); e != 0 && err == 0) err = e;
    std::fill(set.values.begin(), set.values.end(), CounterValue{});
    std::fill(set.slice_base.begin(), set.slice_base.end(), CounterValue{});
    for (SliceStatistics& slices : set.slices) slices.clear();
    set.runs = 0;
    set.last_switch_triggers = 0;
  }
  s.switch_count = 0;
  ++s.sets[static_cast<std::size_t>(s.active)].runs;
  // The kernel's times are not zeroed by a reset: the slice base is today's reading.
  for (State::Set& set : s.sets) s.read_set(set, set.slice_base);
  s.leave_library();
  monitor::EventMatrix::check_control(err, "reset", "the event sets");
}

int EventSets::switch_now() noexcept {
  State& s = *state_;
  s.enter_library();
  const int err = s.switch_sets(0);
  s.leave_library();
  return err;
}

int EventSets::switch_to(std::size_t set) noexcept {
  State& s = *state_;
  if (set >= s.sets.size()) return EINVAL;
  if (set == static_cast<std::size_t>(s.active)) return 0;
  s.enter_library();
  const int err = s.switch_sets(0, set);
  s.leave_library();
  return err;
}

int EventSets::resume() noexcept {
  State& s = *state_;
  if (!s.held) return 0;
  s.enter_library();
  s.held = 0;
  int err = 0;
  if (s.held_switch) {
    s.held_switch = 0;
    const std::uint64_t triggers = s.held_triggers;
    s.held_triggers = 0;
    err = s.switch_sets(triggers);
  } else if (s.running) {
    err = s.enable(s.sets[static_cast<std::size_t>(s.active)]);
  }
  s.leave_library();
  return err;
}

int EventSets::hold() noexcept {
  State& s = *state_;
  if (s.held) return 0;
  s.enter_library();
  s.held = 1;
  const int err = s.disable(s.sets[static_cast<std::size_t>(s.active)]);
  s.leave_library();
  return err;
}

bool EventSets::held() const noexcept {
  return state_->held != 0;
}

bool EventSets::handle_waiting_overflows() noexcept {
  State& s = *state_;
  s.enter_library();
  const auto active = static_cast<std::size_t>(s.active);
  bool switched = s.hook.function != nullptr && s.take_records(active);
  // A timeout whose signal was lost (SIGIO came instead) shows in the timer's count.
  State::Set& set = s.sets[active];
  if (!switched && set.timer && s.counts(static_cast<std::uint32_t>(active))) {
    const std::uint64_t count = State::timer_count(set);
    if (count - set.timer_mark >= static_cast<std::uint64_t>(set.timeout.count())) {
      set.timer_mark = count;
      s.switch_sets(0);
      switched = true;
    }
  }
  s.leave_library();
  return switched;
}

int EventSets::service(int timeout_ms) {
  State& s = *state_;
  sigset_t wanted;
  sigemptyset(&wanted);
  sigaddset(&wanted, s.signo);
  timespec wait{timeout_ms / 1000, (timeout_ms % 1000) * 1'000'000L};
  const timespec none{};
  int switched = 0;
  for (bool first = true;; first = false) {
    siginfo_t info;
    const int signo = ::sigtimedwait(&wanted, &info, first ? (timeout_ms < 0 ? nullptr : &wait) : &none);
    if (signo < 0) {
      if (errno == EINTR && first) continue;
      return switched;
    }
    if (handle_overflow(info)) ++switched;
  }
}

bool EventSets::handle_overflow(const siginfo_t& info) noexcept {
  if (info.si_signo != state_->signo) return false;
  return state_->overflow(info.si_fd);
}

int EventSets::signal_number() const noexcept {
  return state_->signo;
}
bool EventSets::switches_in_handler() const noexcept {
  return state_->in_handler;
}

int EventSets::read() noexcept {
  State& s = *state_;
  s.enter_library();
  int first_error = 0;
  for (State::Set& set : s.sets)
    if (const int err = s.read_set(set, set.values); first_error == 0) first_error = err;
  s.leave_library();
  return first_error;
}

int EventSets::read(std::size_t set) noexcept {
  State& s = *state_;
  if (set >= s.sets.size()) return EINVAL;
  s.enter_library();
  const int err = s.read_set(s.sets[set], s.sets[set].values);
  s.leave_library();
  return err;
}

std::size_t EventSets::set_count() const noexcept {
  return state_->sets.size();
}

EventSetInfo EventSets::info(std::size_t index) const noexcept {
  const State& s = *state_;
  const State::Set& set = s.sets[index];
  EventSetInfo info;
  info.id = set.id;
  info.next = s.sets[set.next].id;
  info.runs = set.runs;
  for (std::size_t location = 0; location < s.location_count; ++location)
    info.active_ns += active_ns(set.values, set.matrix->event_count(), s.location_count, location);
  info.last_switch_triggers = set.last_switch_triggers;
  info.timeout = set.timeout;
  if (set.timer) {
    const std::uint64_t ran = State::timer_count(set) - set.timer_mark,
                        timeout = static_cast<std::uint64_t>(set.timeout.count());
    info.timeout_left = std::chrono::nanoseconds(ran < timeout ? timeout - ran : 0);
  }
  return info;
}

std::size_t EventSets::active_set() const noexcept {
  return static_cast<std::size_t>(state_->active);
}
std::uint32_t EventSets::overflows_left(std::size_t set, std::size_t trigger) const noexcept {
  const State& s = *state_;
  return set < s.sets.size() && trigger < s.sets[set].overflows_left.size() ? s.sets[set].overflows_left[trigger] : 0;
}
std::uint64_t EventSets::switches() const noexcept {
  return state_->switch_count;
}

std::size_t EventSets::event_count(std::size_t set) const noexcept {
  return state_->sets[set].matrix->event_count();
}
const Event& EventSets::event(std::size_t set, std::size_t index) const noexcept {
  return state_->sets[set].matrix->event(index).event;
}
bool EventSets::supported(std::size_t set, std::size_t index) const noexcept {
  return state_->sets[set].matrix->event(index).unsupported.empty();
}
const std::string& EventSets::unsupported_reason(std::size_t set, std::size_t index) const noexcept {
  return state_->sets[set].matrix->event(index).unsupported;
}

CounterValue EventSets::value(std::size_t set_index, std::size_t index) const noexcept {
  const State& s = *state_;
  const std::size_t n = s.location_count;
  CounterValue total;
  const State::Set& own = s.sets[set_index];
  for (std::size_t location = 0; location < n; ++location) {
    const CounterValue& value = own.values[index * n + location];
    total.raw += value.raw;
    total.running += static_cast<std::uint64_t>(
        running_on_set_clock(static_cast<double>(value.running), static_cast<double>(value.enabled),
                             static_cast<double>(active_ns(own.values, own.matrix->event_count(), n, location))));
    total.lost += value.lost;
    for (const State::Set& set : s.sets) total.enabled += active_ns(set.values, set.matrix->event_count(), n, location);
  }
  return total;
}

CountEstimate EventSets::estimate(std::size_t set, std::size_t index) const noexcept {
  return state_->sets[set].slices[index].estimate(static_cast<double>(value(set, index).enabled));
}

int EventSets::fd(std::size_t set, std::size_t index, std::size_t location) const noexcept {
  const State& s = *state_;
  if (set >= s.sets.size() || location >= s.location_count) return -1;
  for (const monitor::OpenGroup& group : s.sets[set].matrix->groups()) {
    const monitor::GroupFds& at = group.at[location];
    for (std::size_t k = 0; k < at.fds.size(); ++k)
      if (at.events[k] == index) return at.fds[k].get();
  }
  return -1;
}

const std::vector<Location>& EventSets::locations() const noexcept {
  return *state_->locations;
}
const std::vector<std::string>& EventSets::notes() const noexcept {
  return state_->notes;
}

}  // namespace perfmon
