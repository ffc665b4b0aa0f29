// SPDX-License-Identifier: Apache-2.0
// perfmon: a counting session — event groups opened on a target, started, stopped and read.
//
//   perfmon::EventCatalog catalog;
//   perfmon::CounterSession session(catalog.parse("task-clock,{page-faults,context-switches}"),
//                                   perfmon::Target::self());
//   session.start();
//   work();
//   session.stop();
//   if (session.read() == 0) std::printf("%llu\n", (unsigned long long)session.value(1).raw);
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "perfmon/counter.hpp"
#include "perfmon/estimate.hpp"
#include "perfmon/event.hpp"
#include "perfmon/location.hpp"
#include "perfmon/reading.hpp"
#include "perfmon/sample.hpp"
#include "perfmon/target.hpp"

namespace perfmon {

struct SessionOptions {
  // Count threads and processes the target creates after the counters are opened.
  bool inherit = true;
  // Events this machine cannot count (no PMU, unknown to the PMU) are kept and reported as
  // unsupported instead of failing the session.
  bool skip_unsupported = true;
  // Read hardware counters in user mode (x86 rdpmc, arm64 mrs) through each event's mmap'd user
  // page, without a system call, where the kernel allows it: for Target::self() without inherit.
  // Elsewhere, and whenever a counter is not on the PMU at that moment, read(2) is used; notes()
  // says when user-mode reads are off and why.
  bool user_space_reads = false;
  // Refuse a measurement that would be multiplexed: the constructor throws perfmon::Error with the
  // reason when the hardware events need more counters at once than the CPU gives (pass_plan.hpp),
  // and every group is pinned, so that the kernel never rotates one off the PMU; a group it still
  // cannot keep there (a counter taken by someone else) reads as scheduling_failed().
  bool strict = false;
  // Keep each event's rate between successive read()s, for estimate()'s error bars on multiplexed
  // counts (a few floating-point additions per event and read: about 5% on a read of four events).
  bool error_bars = false;

  // Overflow signals (Solaris cpc's CPC_BIND_EMT_OVF, perfmon2's PFM_REGFL_OVFL_NOTIFY), without
  // inherit, for Target::self() or with an overflow_thread: event i with overflow_periods[i] > 0
  // overflows after that many events and then every that many, raising `overflow_signal` in the
  // thread that opened the session (or overflow_thread) (si_code POLL_IN, or POLL_HUP for the last of stop_after; si_fd
  // the event's fd, which event_of_fd() names). With stop_after > 0 each such event stops itself after that many
  // overflows, at the overflow, until rearm(). The count goes on as without: value() is unchanged.
  // An event that stops itself must lead its group and not be a tracepoint: the kernel (6.18) does
  // not restart a group member or a tracepoint that its refresh count stopped.
  std::vector<std::uint64_t> overflow_periods;
  int overflow_signal = 0;
  int stop_after = 0;
  // The thread of this process that takes the overflow signals (0: the thread that opens the
  // session). Naming one lets any target without inherit overflow — a thread of another process, a
  // CPU — and that thread takes the signals (sigwaitinfo, with the signal blocked) while the target
  // runs on: the handling comes later than the overflow, by the signal's delivery.
  pid_t overflow_thread = 0;
  // Keep what the kernel saw at each overflow — the interrupted IP, pid, tid, CPU and
  // CLOCK_MONOTONIC time — in a ring per location, for take_overflow(). Not with user_space_reads.
  bool overflow_records = false;
};

// Whether value() takes off the measurement's own cost, as calibrate() measured it.
enum class Overhead { Keep, Subtract };

enum class ReadMethod {
  Fastest,  // user mode where set up and possible, else read(2)
  Syscall,  // always read(2)
};

// In a program on perfmon's emulated CPU (run by perfmon stat --emulate), a session of
// Target::self() takes the calling thread's counts from the emulated CPU instead of the kernel:
// instructions and what else it counts, exactly (docs/emulated.md, "Regions").
class CounterSession {
 public:
  // Opens every event of every group on every location of the target, disabled (a workload
  // target is enabled by the kernel at exec). Throws perfmon::Error.
  CounterSession(const std::vector<EventGroup>& groups, const Target& target, SessionOptions options = {});
  ~CounterSession();
  CounterSession(CounterSession&&) noexcept;
  CounterSession& operator=(CounterSession&&) noexcept;

  // Enable, disable and zero all groups (one ioctl per group and location). Throw perfmon::Error.
  void start();
  void stop();
  void reset();

  // Reads every group: in user mode where possible (user_space_reads), else with one read(2) per
  // group. Allocates nothing, throws nothing. Returns 0, or the errno of the first failed read
  // (the values of that group are left as they were). User-mode reads of a group's members are
  // taken one after the other, not atomically as read(2) takes them.
  int read(ReadMethod method = ReadMethod::Fastest) noexcept;
  // How many event values the last read() took in user mode.
  std::size_t user_mode_reads() const noexcept;

  std::size_t event_count() const noexcept;
  // The event as opened: its name as written, its attr as the kernel took it.
  const Event& event(std::size_t index) const noexcept;
  const OpenFallbacks& fallbacks(std::size_t index) const noexcept;
  // False when the machine cannot count the event; unsupported_reason() says why (a cause and a fix).
  bool supported(std::size_t index) const noexcept;
  const std::string& unsupported_reason(std::size_t index) const noexcept;
  // True when the kernel put a pinned group into error state: it could not be kept on the PMU.
  bool scheduling_failed(std::size_t index) const noexcept;

  const std::vector<Location>& locations() const noexcept;
  // The last read value of an event, summed over all locations, or at one location.
  CounterValue value(std::size_t index) const noexcept;
  CounterValue value(std::size_t index, std::size_t location) const noexcept;
  // The scaled value of a multiplexed event with its standard error, from the event's rate between
  // successive read()s (each read is a slice; SessionOptions::error_bars): read while the
  // measurement runs (perfmon stat reads every 100 ms) for an error bar; a count that was never
  // multiplexed is exact (error 0). Without error_bars, the standard error is unknown.
  CountEstimate estimate(std::size_t index) const noexcept;

  // Overhead calibration, for the calling thread (Target::self()): measures an empty region
  // (reset, start, stop, read with nothing between) `repetitions` times and keeps the median count
  // of each event, the measurement's own cost (for example the instructions of the ioctls' user
  // side). Leaves the counters stopped and zeroed. Throws perfmon::Error for another target, where
  // the measurement costs the target nothing it would count.
  void calibrate(int repetitions = 31);
  bool calibrated() const noexcept;
  // The median count of an empty region (0 before calibrate()).
  std::uint64_t overhead(std::size_t index) const noexcept;
  // The last read value with the overhead taken off the raw count (never below 0).
  CounterValue value(std::size_t index, Overhead overhead) const noexcept;
  // One sentence for every event whose overhead is more than `fraction` of its last count
  // ("region too small: the measurement itself is 38% of this count of 'instructions:u' (212 of
  // 560)"); empty before calibrate().
  std::vector<std::string> small_region_warnings(double fraction = 0.05) const;

  // Counts only the occurrences of tracepoint `index` that pass an ftrace filter over its fields
  // ("error_code & 2", "!(error_code & 2)", "ret < 0": perf's --filter), at every location.
  // Throws perfmon::Error when the event is not a tracepoint or the kernel refuses the filter.
  void set_filter(std::size_t index, const std::string& filter);
  // The event's fd at a location (-1 where it did not open): for poll(2), or an ioctl of the caller's.
  int fd(std::size_t index, std::size_t location = 0) const noexcept;
  // ---- Overflow handling, for what the seeds' C interfaces need (SessionOptions' overflow fields;
  // held apart in monitor/overflow_signals; perfmon/event_control.hpp holds, zeroes and re-periods
  // one event).
  // The event whose fd an overflow signal names (siginfo_t::si_fd), or -1. Async-signal-safe.
  long event_of_fd(int fd) const noexcept;
  // Gives an event with an overflow period a new one (0: keep it) and arms it for `overflows` more
  // (0: stop_after again; with stop_after 0, it simply runs on): the next overflow comes after
  // exactly `period` more events, as a cpc handler re-presets its counter. Returns 0 or an errno.
  // Async-signal-safe (two ioctls per location).
  int rearm(std::size_t index, std::uint64_t period = 0, int overflows = 0) noexcept;
  // With overflow_records: takes the oldest overflow waiting in the ring of `fd`'s location (`fd`:
  // an overflow signal's si_fd) into `sample` (ip, pid, tid, time, cpu; event: its index). False
  // when none waits. Every overflow leaves a record, so a handler takes them until false and a
  // signal that finds none was taken care of with an earlier one. Async-signal-safe; one caller at
  // a time per session.
  bool take_overflow(int fd, std::size_t& event, Sample& sample) noexcept;

  // The last read() as one value: every event with its values per location and estimate, the notes.
  // Allocates: read() is the hot path, this is for reports.
  Reading reading() const;

  // ---- What the session did and is.
  // Things the session did on the user's behalf (for example a fallback to user-space counting).
  const std::vector<std::string>& notes() const noexcept;
  // True when the counts come from perfmon's emulated CPU (emulated.hpp: a region of a program
  // running there, or Target::emulated), not from the kernel: label them so (stat_rows does).
  bool emulated() const noexcept;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace perfmon
