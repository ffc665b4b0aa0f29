// SPDX-License-Identifier: Apache-2.0
// A measurement run from start to end, whatever counts it: a counting session, perfmon2's event
// sets, a command on the emulated CPU. Every front end (perfmon stat, Python, the C ABI) asks for
// one with a MeasurementRequest and runs it with run(); none keeps its own loop.
//
//   perfmon::MeasurementRequest request;
//   request.groups = catalog.parse("task-clock,page-faults");
//   request.command = {"make", "-j2"};
//   std::unique_ptr<perfmon::Measurement> measurement = perfmon::measure(request);
//   perfmon::RunHooks hooks;  // nothing to add: waits for the command's end
//   perfmon::RunResult result = perfmon::run(*measurement, hooks);
//   // result.reading, result.exit, result.elapsed
#pragma once

#include <signal.h>
#include <sys/types.h>

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "perfmon/cache_geometry.hpp"
#include "perfmon/catalog.hpp"
#include "perfmon/event.hpp"
#include "perfmon/event_sets.hpp"
#include "perfmon/pass_plan.hpp"
#include "perfmon/reading.hpp"
#include "perfmon/target.hpp"
#include "perfmon/workload.hpp"

namespace perfmon {

// The command a measurement runs: started once counting is on, waited for, and handed the
// signals that ask it to stop.
class Command {
 public:
  virtual ~Command() = default;
  virtual void start() = 0;  // throws perfmon::Error when it cannot run
  // Without blocking: true once it has exited, with `exit` filled in.
  virtual bool wait(WorkloadExit& exit) = 0;
  virtual void signal(int signo) = 0;
  virtual pid_t pid() const = 0;
};

// perfmon::Workload or perfmon::EmulatedWorkload as a Command.
template <typename W>
class CommandOf final : public Command {
 public:
  explicit CommandOf(W& workload) : workload_(workload) {}
  void start() override { workload_.start(); }
  bool wait(WorkloadExit& exit) override { return workload_.wait(exit, false); }
  void signal(int signo) override { workload_.signal(signo); }
  pid_t pid() const override { return workload_.pid(); }

 private:
  W& workload_;
};

// Where a measurement counts, as a value: processes, threads, CPUs (an empty list: every CPU), a
// cgroup; none of them, the command's threads, or without a command the calling process.
struct TargetChoice {
  std::vector<pid_t> pids, tids;
  bool all_cpus = false;
  std::optional<std::vector<int>> cpus;
  std::string cgroup;  // on `cpus` if given, else every CPU
};

// The target chosen: the command's (`workload`) where nothing else is. Throws perfmon::Error.
Target make_target(const TargetChoice& choice, const Workload* workload);
// False once every thread of a thread target has exited (always true for CPU-wide targets).
bool targets_alive(const Target& target);

// What to measure and where: the events (or event sets), the target, and the command, on the
// host's PMU or the emulated CPU.
struct MeasurementRequest {
  std::vector<EventGroup> groups;        // none, with a command: a null run, its time and usage alone
  std::vector<EventSetDefinition> sets;  // the sets instead of groups
  std::vector<std::string> command;      // empty: the target
  TargetChoice target;
  bool emulate = false;  // the command on QEMU's emulated CPU (docs/emulated.md)
  bool inherit = true;
  bool strict = false;
  bool skip_unsupported = true;  // an event this machine cannot count is read as unsupported
  bool error_bars = true;        // each read a slice of a multiplexed count's rate (SessionOptions)
  CacheHierarchy caches;         // the emulated CPU's caches, where given
  bool start_paused = false;     // start() leaves counting off, for resume()
  // Event sets over a target other than the calling thread, used without run() (around a block of
  // the caller's): a thread of the measurement's own takes their signals and switches them, its
  // switches and the caller's calls one at a time. (Over the calling thread they switch in a
  // signal handler; run() takes the signals itself.)
  bool own_switching_thread = false;
};

class Measurement {
 public:
  virtual ~Measurement() = default;
  // Counting on (where the kernel does not turn it on at the command's exec), and off. Throw
  // perfmon::Error.
  virtual void start() = 0;
  virtual void stop() = 0;
  // Counting off and on again in the middle of a run, the counts kept across: for the kinds that
  // can (a counting session); the others throw perfmon::Error.
  virtual void pause();
  virtual void resume();
  // Every count, and what was made of them, back to zero.
  virtual void reset() = 0;
  // Takes the counts now: 0 or an errno.
  virtual int read() noexcept = 0;
  // The last read as one value (before the first: the events as opened, with nothing counted).
  virtual Reading reading() const = 0;
  // The command it runs, or null when it watches targets that already run (target()).
  virtual Command* command() noexcept = 0;
  virtual const Target& target() const noexcept = 0;
  // Where it counts, in words (" on /usr/bin/qemu-x86_64"; "" for the host's PMU).
  virtual std::string counting_on() const { return ""; }
  // A signal the measurement handles while it runs (0: none): run() waits for it (and for SIGIO,
  // the kernel's stand-in when its queue is full) and hands it over.
  virtual int signal_number() const noexcept { return 0; }
  virtual void handle_signal(const siginfo_t&) noexcept {}
};

// The measurement the request asks for, of the kind it names (measurement_kinds.cpp: a kind is a
// measure_<kind>.cpp and one line there). Opens the events; the command waits for start().
// Throws perfmon::Error.
std::unique_ptr<Measurement> measure(const MeasurementRequest& request);

// The caller's part in a run. Every member has a default that does nothing.
class RunHooks {
 public:
  virtual ~RunHooks() = default;
  // Once the measurement counts and its command runs.
  virtual void started() {}
  // Every RunOptions::tick while it runs, and once at its end: the time since the last tick.
  virtual void tick(std::chrono::nanoseconds /*since_last*/) {}
  // After every wake but the last: the caller's own business (a control channel's commands, a
  // delay's end).
  virtual void act() {}
  // When act() must be called next at the latest.
  virtual std::optional<std::chrono::steady_clock::time_point> deadline() const { return std::nullopt; }
  // Another signal the caller blocked and wants to be woken by (a control channel's, a terminal's
  // SIGWINCH; 0: none), and what is done when it comes.
  virtual int signal_number() const noexcept { return 0; }
  virtual void signalled(const siginfo_t& /*info*/) {}
  // Where the caller takes the signals that ask to stop itself (Python's Ctrl-C), asked at least
  // every RunOptions::longest_wait: a signal for the command (SIGINT, then SIGKILL), or 0.
  virtual int interruption() { return 0; }
  // Descriptors that wake the run (a sampler's rings: POLLIN), and what is done when they do.
  virtual std::vector<int> wake_fds() const { return {}; }
  virtual void woken() {}
};

struct RunOptions {
  std::chrono::milliseconds tick{0};  // 0: no tick
  // The longest run() waits between rounds (where a caller's interruption() must be asked).
  std::chrono::milliseconds longest_wait{0};  // 0: no limit
  // Whether SIGINT, SIGTERM, SIGHUP and SIGCHLD, where the calling thread blocks them, are run()'s
  // to take; false where another thread of the caller's waits for them (a server's).
  bool take_stop_signals = true;
};

// How a run ended.
struct RunResult {
  Reading reading;                   // read after stop()
  std::optional<WorkloadExit> exit;  // the command's, where it has one and it ended
  bool interrupted = false;          // SIGINT, SIGTERM or SIGHUP (or interruption()) asked to stop
  std::chrono::nanoseconds elapsed{0};
};

// What run() does between the command's start and its end, for what is not a Measurement (a
// Recording): waits until `command` exits, a signal asks to stop, or (without a command) every
// thread of `target` has exited, calling the hooks, handing `signals_of` (where given) its signal.
// Fills in result's exit and interrupted.
void wait_until_done(Command* command, const Target& target, RunHooks& hooks, const RunOptions& options,
                     RunResult& result, Measurement* signals_of = nullptr);

// Runs a measurement to its end: start(), the command started, then waits until it exits, a signal
// asks to stop, or (without a command) every thread of the target has exited, handing the
// measurement its signal, calling the hooks; stop() and a last read. SIGINT, SIGTERM and SIGHUP,
// where the calling thread blocks them, are taken: with a command they are passed on to it (its
// exit ends the run), without one they end it. Throws perfmon::Error (the command cannot run, the
// counters cannot be read).
RunResult run(Measurement& measurement, RunHooks& hooks, const RunOptions& options = {});

// A command counted once per pass of a plan (perfmon/pass_plan.hpp), what perfmon stat --passes
// and Python's stat(passes=True) run: which passes run, each pass's events labelled "passN", and
// for a pass that does not run its events with why not. A pass none of whose own events can be
// counted here is not run (the first is, where none of any pass can: for the events every pass
// counts).
class PassRuns {
 public:
  PassRuns(const PassPlan& plan, const std::vector<EventGroup>& groups);
  std::size_t count() const { return runs_.size(); }
  bool runs(std::size_t pass) const { return runs_[pass]; }
  // A pass's groups, to measure.
  std::vector<EventGroup> groups_of(std::size_t pass) const { return plan_.groups_of(pass, groups_); }
  // A pass's reading labelled as its own ("pass2").
  static void label(Reading& reading, std::size_t pass);
  // A pass not run: its own events, each unsupported with the reason, labelled.
  Reading not_run(std::size_t pass) const;
  // "pass2, pass3" (empty where every pass runs), and how many.
  std::string not_run_names() const;
  std::size_t not_run_count() const;

 private:
  const PassPlan& plan_;
  const std::vector<EventGroup>& groups_;
  std::vector<bool> runs_;
};

// Event sets from lists of events (perf's syntax, one list a set), each on the PMU for `timeout`
// of the target's time, or (with a trigger) until the trigger event has counted `period` more: a
// trigger is found in each set by its name, or added to it as a group of its own.
struct SetSwitching {
  std::chrono::nanoseconds timeout{0};
  std::string trigger;
  std::uint64_t period = 0;
};
std::vector<EventSetDefinition> event_sets_of(const EventCatalog& catalog, const std::vector<std::string>& lists,
                                              const SetSwitching& switching);

}  // namespace perfmon
