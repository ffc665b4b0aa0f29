// A recording into a perf.data file, as perf record makes one: a sampler on the target, the file's
// events, the kernel's map and what already runs described first, the rings drained into the file
// round by round, and the end (what the rings still hold, the samples lost, the header). perfmon
// record, Python's record(), serve's profiles and the C ABI all record through it.
//
//   perfmon::Recording recording(fd, groups, target, options, {});
//   perfmon::RunHooks hooks;
//   recording.record(&command, hooks);  // the command run to its end, drained as it runs
//   perfmon::RecordLoss lost = recording.finish(perfmon::describe_this_host({"my-tool"}));
#pragma once

#include <sys/types.h>

#include <vector>

#include "perfmon/event.hpp"
#include "perfmon/measurement.hpp"
#include "perfmon/perf_data.hpp"
#include "perfmon/sampler.hpp"
#include "perfmon/target.hpp"

namespace perfmon {

class Recording {
 public:
  // Opens the sampler (the events disabled; a command's enabled at its exec), writes the file's
  // events, the kernel's map and what already runs: every process for a CPU-wide target, else the
  // processes `described` (their threads' names and mappings). `fd` is a regular file's: the header
  // is written last, in place. Throws perfmon::Error.
  Recording(int fd, const std::vector<EventGroup>& groups, const Target& target, const SamplingOptions& options,
            const std::vector<pid_t>& described);
  Recording(const Recording&) = delete;
  Recording& operator=(const Recording&) = delete;

  // Sampling on and off (a command's events go on at its exec by themselves: start() leaves them).
  void start();
  void stop();
  // What the rings hold, into the file, as one round.
  void drain();
  // Up to `timeout_ms` for the rings to fill, then drain().
  void wait_and_drain(int timeout_ms);
  // start(), the command started (throws when it cannot run), drained on every wake until it ends
  // (or, without one, until a signal asks to stop or every thread of the target has exited), then
  // stop(). `hooks` are the caller's (a tick for a progress line); `exit` and `interrupted` as run().
  RunResult record(Command* command, RunHooks& hooks, const RunOptions& options = {std::chrono::milliseconds(100)});
  // The end: what the rings still hold drained, the samples lost written down, the header written.
  // Returns what was lost.
  RecordLoss finish(const PerfDataHost& host);

  const Sampler& sampler() const { return sampler_; }
  const PerfDataWriter& file() const { return file_; }

 private:
  Target target_;
  Sampler sampler_;
  PerfDataWriter file_;
  PerfDataRecordWriter records_;
};

}  // namespace perfmon
