#include "perfmon/event_sets.hpp"

#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <mutex>

#include "kernel/perf_event.hpp"
#include "monitor/event_matrix.hpp"
#include "monitor/overflow_records.hpp"
#include "perfmon/error.hpp"

namespace perfmon {

namespace {

// The hrtimer behind a software clock's sampling period is never shorter (perf_swevent_start_hrtimer).
constexpr std::chrono::nanoseconds kShortestTimeout{10'000};

Error invalid(const std::string& text) {
  return Error(ErrorKind::InvalidArgument, text, EINVAL);
}

std::string set_name(std::uint16_t id) {
  return "event set " + std::to_string(id);
}

// The one location a set's timer is opened at: a timeout is one clock for the whole measurement,
// not one per CPU or thread (with inherit, the threads a thread creates run it down too).
Target timer_target(const Target& target, const monitor::Locations& locations) {
  Target timer = target;
  const Location& first = locations.list().front();
  if (target.kind == Target::Kind::Self) return timer;
  if (locations.cpu_wide()) {
    Target cpu = Target::cpu_list({first.cpu});
    return cpu;
  }
  timer.threads = {first.tid};
  return timer;
}

// A set's time on the PMU at a location: the longest enabled time of its groups. They are enabled
// one after the other, each ioctl taking kernel time in which no group's own work happens, so their
// windows differ a little; the longest is the set's.
std::uint64_t active_ns(const std::vector<CounterValue>& values, std::size_t events, std::size_t locations,
                        std::size_t location) {
  std::uint64_t longest = 0;
  for (std::size_t event = 0; event < events; ++event)
    longest = std::max(longest, values[event * locations + location].enabled);
  return longest;
}

// An event's running time on the set's clock: the share of its own window it ran, times the set's
// window. Taking its running time as it is would credit a group enabled later (after more
// enabling ioctls) with the same work in less time, a bias of about 0.5% per group in the rig.
double running_on_set_clock(double running, double enabled, double set_active) {
  return enabled <= 0 ? 0.0 : running * set_active / enabled;
}

Event timer_event(bool cpu_wide, std::chrono::nanoseconds timeout) {
  Event timer;
  timer.name = cpu_wide ? "cpu-clock" : "task-clock";
  timer.pmu = "software";
  timer.attr.type = PERF_TYPE_SOFTWARE;
  timer.attr.config = cpu_wide ? PERF_COUNT_SW_CPU_CLOCK : PERF_COUNT_SW_TASK_CLOCK;
  timer.attr.sample_period = static_cast<std::uint64_t>(timeout.count());
  return timer;
}

}  // namespace

struct EventSets::State {
  struct Set {
    std::uint16_t id = 0;
    std::optional<std::uint16_t> explicit_next;
    std::size_t next = 0;  // index
    std::chrono::nanoseconds timeout{0};
    std::vector<EventSetDefinition::Trigger> triggers;
    std::unique_ptr<monitor::EventMatrix> matrix;
    std::unique_ptr<monitor::EventMatrix> timer;
    std::uint64_t timer_mark = 0;               // the timer's count as its current period began (its last overflow)
    std::vector<CounterValue> values;           // [event * locations + location], as of the last read()
    std::vector<CounterValue> slice_base;       // the same, as of the set's last switch away
    std::vector<CounterValue> slice_now;        // taken at a switch
    std::vector<SliceStatistics> slices;        // by event, locations summed
    std::vector<double> slice_active;           // by location: the set's time in the slice being closed
    std::vector<std::uint32_t> overflows_left;  // by trigger
    std::vector<int> trigger_of_event;          // -1 for an event that is no trigger
    std::optional<monitor::OverflowRecords> records;  // with a hook
    std::uint64_t runs = 0;
    std::uint64_t last_switch_triggers = 0;
  };
  struct Route {
    int fd;
    std::uint32_t set;
    std::int32_t trigger;  // -1: the set's timer; -2: a sampled event of a hooked set
    std::uint32_t location;
  };

  std::vector<Set> sets;
  std::vector<Route> routes;  // sorted by fd
  std::size_t location_count = 0;
  const std::vector<Location>* locations = nullptr;
  std::vector<std::string> notes;
  int signo = 0;
  bool in_handler = false;
  bool signals_elsewhere = false;  // routed to an overflow_thread: no signal mask of ours to undo
  EventSetOptions::OverflowHook hook;
  // Touched by the switch, which may run in a signal handler of the same thread.
  volatile std::sig_atomic_t active = 0;
  volatile std::sig_atomic_t running = 0;
  volatile std::sig_atomic_t busy = 0;             // depth of calls inside the library
  volatile std::sig_atomic_t pending_switch = 0;   // asked for while busy
  volatile std::sig_atomic_t records_waiting = 0;  // a hooked overflow came while busy
  volatile std::sig_atomic_t held = 0;             // by the hook, until resume()
  volatile std::sig_atomic_t held_switch = 0;      // a trigger ran out while held
  std::uint64_t pending_triggers = 0;
  std::uint64_t held_triggers = 0;
  std::uint64_t switch_count = 0;

  const Route* route_of(int fd) const noexcept {
    auto it = std::lower_bound(routes.begin(), routes.end(), fd, [](const Route& r, int f) { return r.fd < f; });
    return it != routes.end() && it->fd == fd ? &*it : nullptr;
  }

  // The set's groups are the last enabled and the first disabled, so that they count as little
  // as possible of the switch itself (the timer counts time, not the switch's instructions).
  int enable(Set& set) noexcept {
    int err = set.timer ? set.timer->enable() : 0;
    const int matrix_err = set.matrix->enable();
    return err != 0 ? err : matrix_err;
  }
  int disable(Set& set) noexcept {
    int err = set.matrix->disable();
    const int timer_err = set.timer ? set.timer->disable() : 0;
    return err != 0 ? err : timer_err;
  }

  static void signal_handler(int signo, siginfo_t* info, void* context) noexcept;

  // The set's timer's count of ns (one read(2) of its one location), or 0.
  static std::uint64_t timer_count(const Set& set) noexcept {
    std::uint64_t count = 0;
    if (set.timer && !set.timer->groups().empty() && !set.timer->groups().front().at.empty() &&
        !set.timer->groups().front().at.front().fds.empty() &&
        ::read(set.timer->groups().front().at.front().fds.front().get(), &count, sizeof count) != sizeof count)
      count = 0;
    return count;
  }

  // Reads every group of the set at every location into `into` ([event * locations + location]).
  // Returns 0 or the errno of the first group that could not be read.
  int read_set(Set& set, std::vector<CounterValue>& into) noexcept {
    const std::size_t n = location_count;
    int first_error = 0;
    for (std::size_t g = 0; g < set.matrix->groups().size(); ++g)
      for (std::size_t location = 0; location < n; ++location) {
        const int err = set.matrix->read(
            g, location, [&](std::size_t event, const CounterValue& value) { into[event * n + location] = value; });
        if (err > 0 && first_error == 0) first_error = err;
      }
    return first_error;
  }

  // The activation that just ended is one slice of every event of the set.
  void close_slice(Set& set) noexcept {
    const std::size_t n = location_count;
    const std::size_t events = set.slices.size();
    read_set(set, set.slice_now);
    for (std::size_t location = 0; location < n; ++location)
      set.slice_active[location] = static_cast<double>(active_ns(set.slice_now, events, n, location) -
                                                       active_ns(set.slice_base, events, n, location));
    for (std::size_t event = 0; event < events; ++event) {
      double count = 0, running = 0;
      for (std::size_t location = 0; location < n; ++location) {
        const CounterValue& now = set.slice_now[event * n + location];
        CounterValue& base = set.slice_base[event * n + location];
        count += static_cast<double>(now.raw - base.raw);
        running += running_on_set_clock(static_cast<double>(now.running - base.running),
                                        static_cast<double>(now.enabled - base.enabled), set.slice_active[location]);
      }
      set.slices[event].add(count, running);
    }
    for (std::size_t i = 0; i < set.slice_now.size(); ++i) set.slice_base[i] = set.slice_now[i];
  }

  void activate(std::size_t index) noexcept {
    active = static_cast<std::sig_atomic_t>(index);
    Set& set = sets[index];
    ++set.runs;
    for (std::size_t t = 0; t < set.triggers.size(); ++t) set.overflows_left[t] = set.triggers[t].overflows;
  }

  // The active set gives way to `to` (its next by default).
  int switch_sets(std::uint64_t triggers, std::optional<std::size_t> to = std::nullopt) noexcept {
    Set& from = sets[static_cast<std::size_t>(active)];
    // Switching from another thread, the target runs on meanwhile: the blind spot between the
    // sets is the one ioctl between the outgoing groups' disable and the incoming groups' enable;
    // the timers follow, and the last set is read after. In the monitored thread's handler, the
    // target's own work waits: the last set is read before the next is enabled, so that no set
    // counts the reading's own instructions (0.7% of the truth at 250 us slices in the rig).
    const bool target_runs_on = running && !held && !in_handler;
    int err = !running ? 0 : target_runs_on ? from.matrix->disable() : disable(from);
    auto keep = [&err](int e) {
      if (err == 0) err = e;
    };
    from.last_switch_triggers = triggers;
    activate(to.value_or(from.next));
    Set& next = sets[static_cast<std::size_t>(active)];
    if (target_runs_on) {
      keep(next.matrix->enable());
      if (from.timer) keep(from.timer->disable());
      if (next.timer) keep(next.timer->enable());
      close_slice(from);
    } else if (running) {
      close_slice(from);
      if (!held) keep(enable(next));
    }
    ++switch_count;
    return err;
  }

  void request_switch(std::uint64_t triggers) noexcept {
    if (busy) {
      pending_triggers |= triggers;
      pending_switch = 1;
      return;
    }
    switch_sets(triggers);
  }

  void enter_library() noexcept {
    busy = busy + 1;
    std::atomic_signal_fence(std::memory_order_seq_cst);
  }
  // What overflows asked for while the library was busy happens as its outermost call ends.
  void leave_library() noexcept {
    std::atomic_signal_fence(std::memory_order_seq_cst);
    if (busy > 1) {
      busy = busy - 1;
      return;
    }
    if (records_waiting) {
      records_waiting = 0;
      take_records(static_cast<std::size_t>(active));
    }
    busy = 0;
    std::atomic_signal_fence(std::memory_order_seq_cst);
    if (pending_switch) {
      pending_switch = 0;
      const std::uint64_t triggers = pending_triggers;
      pending_triggers = 0;
      switch_sets(triggers);
    }
  }

  bool counts(std::uint32_t set) const noexcept {
    return running && !held && set == static_cast<std::uint32_t>(active);
  }

  // One overflow of trigger t of the active set: its cause bit when it ends the set's turn, else 0.
  std::uint64_t trigger_overflowed(Set& set, std::size_t t) noexcept {
    std::uint32_t& left = set.overflows_left[t];
    return left != 0 && --left == 0 ? std::uint64_t{1} << t : 0;
  }

  // Hands the records waiting in a hooked set's rings to the hook, in order, and does what they
  // ask. True when the set gave way.
  bool take_records(std::size_t index) noexcept {
    Set& set = sets[index];
    if (!set.records) return false;
    busy = busy + 1;  // a read() in the hook leaves switches to us
    bool switched = false;
    std::size_t event = 0;
    Sample record;
    for (std::size_t location = 0; location < location_count; ++location)
      while (set.records->take(location, event, record)) {
        if (!counts(static_cast<std::uint32_t>(index))) continue;
        const OverflowAction action = hook.function(hook.user, index, event, record);
        const int trigger = set.trigger_of_event[event];
        const std::uint64_t cause = trigger >= 0 ? trigger_overflowed(set, static_cast<std::size_t>(trigger)) : 0;
        if (action == OverflowAction::Hold) {
          disable(set);
          held = 1;
          if (cause != 0) held_switch = 1, held_triggers |= cause;
        } else if (cause != 0) {
          switch_sets(cause);
          switched = true;
        }
      }
    busy = busy - 1;
    return switched;
  }

  // One overflow signal of a timer, trigger or hooked event. True when it switched (or will, once
  // the library's call ends).
  bool overflow(int fd) noexcept {
    const Route* route = route_of(fd);
    if (route == nullptr) return false;
    if (route->trigger == -2) {
      if (busy) {
        records_waiting = 1;
        return false;
      }
      return take_records(route->set);
    }
    if (!counts(route->set)) return false;
    if (route->trigger == -1) sets[route->set].timer_mark = timer_count(sets[route->set]);
    std::uint64_t cause = 0;
    if (route->trigger >= 0) {
      cause = trigger_overflowed(sets[route->set], static_cast<std::size_t>(route->trigger));
      if (cause == 0) return false;
    }
    request_switch(cause);
    return true;
  }
};

namespace {

// Handler-driven sets register here (as State*), so that the one signal handler finds them.
constexpr std::size_t kRegistrySlots = 32;
std::atomic<void*> registry[kRegistrySlots];
constexpr int kSignals = 65;         // signal numbers 1 to 64
struct sigaction chained[kSignals];  // what was installed before ours, by signal
bool installed[kSignals];
std::mutex install_mutex;
// Caller-driven sets of this thread, by signal, and whether the signal was unblocked before them.
thread_local int caller_sets[kSignals];
thread_local bool unblock_when_done[kSignals];

}  // namespace

void EventSets::State::signal_handler(int signo, siginfo_t* info, void* context) noexcept {
  const int saved_errno = errno;
  bool ours = false;
  for (std::atomic<void*>& slot : registry) {
    State* state = static_cast<State*>(slot.load(std::memory_order_acquire));
    if (state != nullptr && state->signo == signo && state->route_of(info->si_fd) != nullptr) {
      state->overflow(info->si_fd);
      ours = true;
      break;
    }
  }
  if (!ours) {
    const struct sigaction& previous = chained[signo];
    if ((previous.sa_flags & SA_SIGINFO) != 0 && previous.sa_sigaction != nullptr)
      previous.sa_sigaction(signo, info, context);
    else if (previous.sa_handler != SIG_DFL && previous.sa_handler != SIG_IGN && previous.sa_handler != nullptr)
      previous.sa_handler(signo);
  }
  errno = saved_errno;
}

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
  if (s.in_handler) {
    std::lock_guard<std::mutex> lock(install_mutex);
    if (!installed[s.signo]) {
      struct sigaction action {};
      action.sa_sigaction = State::signal_handler;
      action.sa_flags = SA_SIGINFO | SA_RESTART;
      sigemptyset(&action.sa_mask);
      if (::sigaction(s.signo, &action, &chained[s.signo]) != 0)
        throw Error(ErrorKind::System,
                    std::string("cannot install the event sets' signal handler: ") + std::strerror(errno) + ".", errno);
      installed[s.signo] = true;
    }
    std::size_t slot = 0;
    for (; slot < kRegistrySlots; ++slot) {
      void* expected = nullptr;
      if (registry[slot].compare_exchange_strong(expected, &s)) break;
    }
    if (slot == kRegistrySlots)
      throw Error(ErrorKind::Limit,
                  "too many handler-driven event sets in this process (" + std::to_string(kRegistrySlots) +
                      "); close one first.",
                  EBUSY);
  }
  sigset_t ours, before;
  sigemptyset(&ours);
  sigaddset(&ours, s.signo);
  // In the handler's thread the signal must come through; elsewhere it waits, blocked, until
  // service() or the caller takes it (and is unblocked again when the last such set goes). An
  // overflow_thread masks it itself.
  if (!s.signals_elsewhere) {
    ::pthread_sigmask(s.in_handler ? SIG_UNBLOCK : SIG_BLOCK, &ours, &before);
    if (!s.in_handler && caller_sets[s.signo]++ == 0) unblock_when_done[s.signo] = !sigismember(&before, s.signo);
  }
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
  if (!state_) return;
  for (std::atomic<void*>& slot : registry) {
    void* expected = state_.get();
    slot.compare_exchange_strong(expected, nullptr);
  }
  // A signal already queued for a closed fd finds no set and is ignored; the handler stays.
  const int signo = state_->signo;
  if (state_->in_handler || state_->signals_elsewhere || --caller_sets[signo] > 0) return;
  state_.reset();  // no more overflows: the fds are closed
  sigset_t ours;
  sigemptyset(&ours);
  sigaddset(&ours, signo);
  const timespec none{};
  siginfo_t info;
  while (::sigtimedwait(&ours, &info, &none) == signo) {
  }
  if (unblock_when_done[signo]) ::pthread_sigmask(SIG_UNBLOCK, &ours, nullptr);
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
