// What perfmon stat counts with: one interface over the kinds of measurement — a counting session,
// perfmon2's event sets, a command on the emulated CPU — so that stat has one run loop. A new
// kind is a new measure_<kind>.cpp implementing it, and one line of PERFMON_MEASUREMENT_KINDS
// (stat_command.cpp).
#pragma once

#include <signal.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <cerrno>

#include "perfmon/cache_geometry.hpp"
#include "perfmon/error.hpp"
#include "perfmon/event.hpp"
#include "perfmon/event_sets.hpp"
#include "perfmon/reading.hpp"
#include "perfmon/target.hpp"
#include "perfmon/workload.hpp"
#include "targets.hpp"

namespace perfmon::cli {

// The command a measurement runs: started once counting is on, waited for, and handed the
// signals that ask perfmon to stop.
class Command {
 public:
  virtual ~Command() = default;
  virtual void start() = 0;  // throws perfmon::Error (exit 127) when it cannot run
  // Without blocking: true once it has exited, with `exit` filled in.
  virtual bool wait(WorkloadExit& exit) = 0;
  virtual void signal(int signo) = 0;
};

// perfmon::Workload or perfmon::EmulatedWorkload as a Command.
template <typename W>
class CommandOf final : public Command {
 public:
  explicit CommandOf(W& workload) : workload_(workload) {}
  void start() override { workload_.start(); }
  bool wait(WorkloadExit& exit) override { return workload_.wait(exit, false); }
  void signal(int signo) override { workload_.signal(signo); }

 private:
  W& workload_;
};

class Measurement {
 public:
  virtual ~Measurement() = default;
  // Counting on (where the kernel does not turn it on at the command's exec), and off. Throw
  // perfmon::Error.
  virtual void start() = 0;
  virtual void stop() = 0;
  // Counting off and on again in the middle of a run (perfmon stat -D, --control): for the kinds
  // that can, the counts kept across; the others throw perfmon::Error.
  virtual void pause();
  virtual void resume();
  // Takes the counts now: 0 or an errno. Called every interval while the measurement runs.
  virtual int read() noexcept = 0;
  // The last read as one value (before the first: the events as opened, with nothing counted).
  virtual Reading reading() const = 0;
  // The command it runs, or null when it watches targets that already run (target()).
  virtual Command* command() noexcept = 0;
  virtual const Target& target() const noexcept = 0;
  // Where it counts, for -v ("" for the host's PMU).
  virtual std::string counting_on() const { return ""; }
  // A signal the measurement handles while it runs (0: none): the run loop waits for it (and for
  // SIGIO, the kernel's stand-in when its queue is full) and hands it over.
  virtual int signal_number() const noexcept { return 0; }
  virtual void handle_signal(const siginfo_t&) noexcept {}
};

inline void Measurement::pause() {
  throw Error(ErrorKind::InvalidArgument, "only the events of -e can be counted in parts (-D, --control).", EINVAL);
}
inline void Measurement::resume() {
  pause();  // the same refusal
}

// What perfmon stat asked a measurement to count, and where.
struct MeasurementRequest {
  std::vector<EventGroup> groups;        // -e
  std::vector<EventSetDefinition> sets;  // --sets: the sets instead of groups
  std::vector<std::string> command;      // empty: the target
  TargetChoice target;
  bool inherit = true;
  bool strict = false;
  CacheHierarchy caches;      // --emulate's caches, where given
  bool start_paused = false;  // -D, --control: start() leaves counting off, for resume()
};

// A native command, if one was given, and the target it or the options name: what the host's
// measurements share.
class NativeTarget {
 public:
  explicit NativeTarget(const MeasurementRequest& request) {
    if (!request.command.empty()) {
      workload_.emplace(request.command);
      command_.emplace(*workload_);
    }
    target_ = make_target(request.target, workload_ ? &*workload_ : nullptr);
    if (request.start_paused) target_.enable_on_exec = false;  // on when resumed, not at the exec
  }
  Command* command() noexcept { return command_ ? &*command_ : nullptr; }
  const Target& target() const noexcept { return target_; }

 private:
  std::optional<Workload> workload_;
  std::optional<CommandOf<Workload>> command_;
  Target target_;
};

// The kinds: one a file measure_<kind>.cpp defining measure_<kind>(request), each one line of
// PERFMON_MEASUREMENT_KINDS in stat_command.cpp, its function and the options that choose it.

}  // namespace perfmon::cli
