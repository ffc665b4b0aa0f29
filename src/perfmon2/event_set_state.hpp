// SPDX-License-Identifier: Apache-2.0
// EventSets' state and switch engine: the sets, their timers and triggers, and what switches them
// (event_sets.cpp builds it and serves the public calls; event_set_signals.cpp delivers the
// overflow signals to it).
#pragma once

#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <memory>
#include <optional>

#include "kernel/perf_event.hpp"
#include "monitor/event_matrix.hpp"
#include "monitor/overflow_records.hpp"
#include "perfmon/error.hpp"
#include "perfmon/event_sets.hpp"

namespace perfmon {

namespace perfmon2 {

// The hrtimer behind a software clock's sampling period is never shorter (perf_swevent_start_hrtimer).
constexpr std::chrono::nanoseconds kShortestTimeout{10'000};

inline Error invalid(const std::string& text) {
  return Error(ErrorKind::InvalidArgument, text, EINVAL);
}

inline std::string set_name(std::uint16_t id) {
  return "event set " + std::to_string(id);
}

// The one location a set's timer is opened at: a timeout is one clock for the whole measurement,
// not one per CPU or thread (with inherit, the threads a thread creates run it down too).
inline Target timer_target(const Target& target, const monitor::Locations& locations) {
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
inline std::uint64_t active_ns(const std::vector<CounterValue>& values, std::size_t events, std::size_t locations,
                               std::size_t location) {
  std::uint64_t longest = 0;
  for (std::size_t event = 0; event < events; ++event)
    longest = std::max(longest, values[event * locations + location].enabled);
  return longest;
}

// An event's running time on the set's clock: the share of its own window it ran, times the set's
// window. Taking its running time as it is would credit a group enabled later (after more
// enabling ioctls) with the same work in less time, a bias of about 0.5% per group in the rig.
inline double running_on_set_clock(double running, double enabled, double set_active) {
  return enabled <= 0 ? 0.0 : running * set_active / enabled;
}

inline Event timer_event(bool cpu_wide, std::chrono::nanoseconds timeout) {
  Event timer;
  timer.name = cpu_wide ? "cpu-clock" : "task-clock";
  timer.pmu = "software";
  timer.attr.type = PERF_TYPE_SOFTWARE;
  timer.attr.config = cpu_wide ? PERF_COUNT_SW_CPU_CLOCK : PERF_COUNT_SW_TASK_CLOCK;
  timer.attr.sample_period = static_cast<std::uint64_t>(timeout.count());
  return timer;
}

}  // namespace perfmon2

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

  // The process's one handler per signal, and the sets it serves (event_set_signals.cpp).
  static void signal_handler(int signo, siginfo_t* info, void* context) noexcept;
  // Routes this set's signal: the handler installed and the state registered (handler-driven
  // sets), or the signal masked until the caller takes it. Throws perfmon::Error.
  void take_signals();
  // Gives the signal back as the sets go: unregistered, drained, unblocked where it was.
  static void release_signals(std::unique_ptr<State>& state) noexcept;

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
      set.slice_active[location] = static_cast<double>(perfmon2::active_ns(set.slice_now, events, n, location) -
                                                       perfmon2::active_ns(set.slice_base, events, n, location));
    for (std::size_t event = 0; event < events; ++event) {
      double count = 0, running = 0;
      for (std::size_t location = 0; location < n; ++location) {
        const CounterValue& now = set.slice_now[event * n + location];
        CounterValue& base = set.slice_base[event * n + location];
        count += static_cast<double>(now.raw - base.raw);
        running +=
            perfmon2::running_on_set_clock(static_cast<double>(now.running - base.running),
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

}  // namespace perfmon
