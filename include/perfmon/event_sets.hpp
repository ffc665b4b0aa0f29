// SPDX-License-Identifier: Apache-2.0
// perfmon: event sets (perfmon2 §3.7) — more events than the PMU has counters, switched by the
// library instead of the kernel: exactly one set is on the PMU at a time, and a set gives way to
// the next after a timeout or after overflows of its trigger events.
//
//   perfmon::EventCatalog catalog;
//   std::vector<perfmon::EventSetDefinition> sets(2);
//   sets[0].groups = catalog.parse("{cycles,instructions}");
//   sets[0].timeout = std::chrono::milliseconds(10);
//   sets[1].groups = catalog.parse("{branches,branch-misses}");
//   sets[1].timeout = std::chrono::milliseconds(10);
//   perfmon::EventSets session(sets, perfmon::Target::self());
//   session.start();
//   work();
//   session.stop();
//   session.read();
//   session.value(1, 0).scaled();       // branches, extrapolated to the whole measurement
//   session.estimate(1, 0);             // ... and its standard error
//   session.info(1).runs;               // how often set 1 was on the PMU
#pragma once

#include <signal.h>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "perfmon/counter.hpp"
#include "perfmon/estimate.hpp"
#include "perfmon/event.hpp"
#include "perfmon/reading.hpp"
#include "perfmon/sample.hpp"
#include "perfmon/session.hpp"
#include "perfmon/target.hpp"

namespace perfmon {

// One set: perfmon2's pfarg_setdesc_t with its events.
struct EventSetDefinition {
  std::uint16_t id = 0;  // sets are ordered by id; ids may have holes
  std::vector<EventGroup> groups;
  // The set that follows this one: by default the next higher id, round-robin back to the lowest.
  // An explicit next may point backward or to the set itself (chains such as 0 -> 3 -> 5 -> 0).
  std::optional<std::uint16_t> next;

  // Switch after the set has been on the PMU this long (PFM_SETFL_TIME_SWITCH). The time is the
  // monitored threads' CPU time (task-clock) per thread, CPU time of the first CPU per CPU; it runs
  // only while the set is active and resumes where it stopped. The kernel takes at least 10 us.
  std::chrono::nanoseconds timeout{0};

  // Or switch after overflows of trigger events (PFM_SETFL_OVFL_SWITCH): an event of this set
  // (index among the set's events, in group order) with a sampling period, and how many of its
  // overflows end the set's turn. The count starts again each time the set becomes active.
  struct Trigger {
    std::size_t event = 0;
    std::uint64_t period = 0;
    std::uint32_t overflows = 1;
  };
  std::vector<Trigger> triggers;
};

// What perfmon2's PFM_GETINFO_EVTSETS reports of a set.
struct EventSetInfo {
  std::uint16_t id = 0;
  std::uint16_t next = 0;
  std::uint64_t runs = 0;       // activations, the first at construction included (self-switches too)
  std::uint64_t active_ns = 0;  // time on the PMU, summed over locations (as of the last read())
  // Bit n: trigger n's overflows caused the last switch from this set (0 after a timeout).
  std::uint64_t last_switch_triggers = 0;
  std::chrono::nanoseconds timeout{0};  // effective: what the kernel's timer takes
  // What is left of the timeout in the set's current period, on its clock (one read of its timer).
  std::chrono::nanoseconds timeout_left{0};
};

// What an overflow hook asks of the sets (EventSetOptions::on_overflow).
enum class OverflowAction {
  Continue,  // the set counts on (and gives way if a trigger ran out)
  Hold,      // the active set stops counting, its timer too, until resume()
};

struct EventSetOptions {
  // inherit and skip_unsupported apply; user_space_reads does not. overflow_thread: a thread of
  // this process that takes the overflow signals instead of the one that makes the sets, and hands
  // them to handle_overflow() (switch_in_handler false; the caller serializes its calls on the sets
  // with those). The other overflow options are the sets' own (triggers, timeouts, on_overflow).
  SessionOptions session;
  // The set on the PMU first.
  std::uint16_t first = 0;
  // The real-time signal overflows of timers and triggers arrive as (0: SIGRTMIN + 2).
  int signal = 0;
  // Where switches run. true (the default for Target::self()): in a handler of `signal` that the
  // library installs, in the monitored thread, right after the overflow — a switch then comes
  // before the thread runs another instruction of its own (exact cascades). false (the only choice
  // for other targets): the signal is blocked in the thread that made the EventSets and waits
  // there; that thread switches in service() or handle_overflow().
  std::optional<bool> switch_in_handler;

  // Called for each overflow of an event of the active set that has a sampling period (its
  // attr.sample_period, triggers included), with the kernel's record of it (IP, pid, tid, CPU,
  // CLOCK_MONOTONIC time), where switches run, before the trigger's overflow is counted. Hold stops
  // the set until resume(); a switch that its triggers ask for meanwhile waits for resume() too
  // (perfmon2's masking, §3.4.3). The hook may read() the sets and ioctl() their fd()s; it runs in
  // a signal handler where switches do. Records of a set that is not active, or held, are dropped.
  struct OverflowHook {
    OverflowAction (*function)(void* user, std::size_t set, std::size_t event, const Sample& record) = nullptr;
    void* user = nullptr;
  } on_overflow;
};

class EventSets {
 public:
  // Opens every set's events on the target, disabled, and makes options.first the active set (a
  // workload target's first set is enabled by the kernel at exec). Throws perfmon::Error: for an
  // empty or duplicate set, a next that names no set, a trigger that names no event.
  EventSets(std::vector<EventSetDefinition> sets, const Target& target, EventSetOptions options = {});
  // Closes the sets; for caller-driven sets, in the thread that made them (their signal is
  // unblocked there again once the last of them goes).
  ~EventSets();
  EventSets(EventSets&&) noexcept;
  EventSets& operator=(EventSets&&) noexcept;

  // Enable and disable the active set (start() also resumes after stop(), where it was). Throw
  // perfmon::Error.
  void start();
  void stop();
  // Zero every set's counts, runs, durations and slice statistics.
  void reset();

  // Switch to the next set now (perfmon2 has no call for it; tests and tools use it). Returns 0 or
  // an errno.
  int switch_now() noexcept;
  // Make set `set` (an index) the active one now, as perfmon2's pfm_start(start_set) does; nothing
  // when it is already. Returns 0 or an errno.
  int switch_to(std::size_t set) noexcept;

  // After an overflow hook's Hold: the active set counts again (if started), or gives way first if
  // a trigger ran out meanwhile. Returns 0 or an errno.
  int resume() noexcept;
  // Holds the active set as an overflow hook's Hold does (a caller that reopens held sets).
  int hold() noexcept;
  bool held() const noexcept;
  // Handles what waits without a signal: with on_overflow, every overflow record in the active
  // set's rings (for a caller that stops, or lost signals to a full queue); and a timeout that ran
  // out while its signal was lost. Returns true when it switched.
  bool handle_waiting_overflows() noexcept;

  // Caller-driven switching (switch_in_handler false): wait up to `timeout_ms` (-1: no limit) for
  // overflow signals and switch as they ask. Returns the number of switches made.
  int service(int timeout_ms);
  // Hand one overflow signal taken elsewhere (sigtimedwait, a signalfd) to the sets. Returns true
  // when it switched. Async-signal-safe. When the real-time signal queue is full
  // (RLIMIT_SIGPENDING), the kernel sends SIGIO instead, without the fd: a caller that blocks SIGIO
  // and takes it can call handle_waiting_overflows() or switch_now() (perfmon stat does);
  // unblocked, its default ends the process.
  bool handle_overflow(const siginfo_t& info) noexcept;
  int signal_number() const noexcept;
  bool switches_in_handler() const noexcept;

  // Reads every set's groups (read(2), one per group and location). No switch happens in the middle
  // of it: an overflow that arrives meanwhile is switched on when it ends. Returns 0 or an errno.
  int read() noexcept;
  // The same for one set (an overflow hook that needs its own set's values). EINVAL for no such set.
  int read(std::size_t set) noexcept;

  std::size_t set_count() const noexcept;
  EventSetInfo info(std::size_t set) const noexcept;
  std::size_t active_set() const noexcept;  // an index, in id order
  // Overflows of trigger `trigger` of a set before it ends the set's turn (as of its last
  // activation and since); 0 for no such trigger.
  std::uint32_t overflows_left(std::size_t set, std::size_t trigger) const noexcept;
  std::uint64_t switches() const noexcept;  // since construction or reset()

  std::size_t event_count(std::size_t set) const noexcept;
  const Event& event(std::size_t set, std::size_t index) const noexcept;
  bool supported(std::size_t set, std::size_t index) const noexcept;
  const std::string& unsupported_reason(std::size_t set, std::size_t index) const noexcept;
  // The last read value, summed over locations: raw and running as the kernel counted them, enabled
  // = the whole measurement's time (every set's active time), so that scaled() extrapolates the
  // set's count to the measurement, as perfmon2 §3.7.2 scales.
  CounterValue value(std::size_t set, std::size_t index) const noexcept;
  // The scaled value with its standard error, from the event's rate in each activation of its set
  // (SliceStatistics; read at every switch).
  CountEstimate estimate(std::size_t set, std::size_t index) const noexcept;

  // The descriptor of event `index` of a set at a location (for ioctls such as a new period), or -1.
  int fd(std::size_t set, std::size_t index, std::size_t location) const noexcept;

  const std::vector<Location>& locations() const noexcept;
  const std::vector<std::string>& notes() const noexcept;

  // The last read() as one value: every set's events (labelled "set<id>") with their values
  // extrapolated to the whole measurement and their standard errors; its summary says each set's
  // turns and share of the time. Allocates.
  Reading reading() const;

 private:
  void release() noexcept;
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace perfmon
