// SPDX-License-Identifier: Apache-2.0
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

#include <memory>
#include <optional>
#include <vector>

#include "perfmon/event.hpp"
#include "perfmon/measurement.hpp"
#include "perfmon/perf_data.hpp"
#include "perfmon/sampler.hpp"
#include "perfmon/target.hpp"

namespace perfmon {

class Recording {
 public:
  // Opens a sampler of its own (the events disabled; a command's enabled at its exec), writes the
  // file's events, the kernel's map and what already runs: every process for a CPU-wide target,
  // else the processes `described` (their threads' names and mappings). `fd` is a regular file's:
  // the header is written last, in place; or, with `stream_host`, any descriptor, written in perf's
  // pipe layout (perf record -o -; PerfDataWriter). Throws perfmon::Error.
  Recording(int fd, const std::vector<EventGroup>& groups, const Target& target, const SamplingOptions& options,
            const std::vector<pid_t>& described, const PerfDataHost* stream_host = nullptr);
  // The same over samplers the caller opened (the C ABI's), which stay open until finish(): the
  // file's events are theirs, in order; what already runs is for describe().
  Recording(int fd, std::vector<Sampler*> samplers);
  Recording(const Recording&) = delete;
  Recording& operator=(const Recording&) = delete;

  // What a process that already runs did before the recording: its threads' names, its mappings.
  void describe(pid_t pid);
  // Sampling on and off (a command's events go on at its exec by themselves: these leave them).
  void start();
  void stop();
  // What the rings hold, into the file, as one round: every sampler's, or one's.
  void drain();
  void drain(Sampler& sampler);
  // A sampler of the caller's that is closed before finish(): its last records drained now, and
  // what it lost kept for the end.
  void release(Sampler& sampler);
  // Up to `timeout_ms` for the rings to fill, then drain().
  void wait_and_drain(int timeout_ms);
  // start(), the command started (throws when it cannot run), drained on every wake until it ends
  // (or, without one, until a signal or the hooks ask to stop or every thread of the target has
  // exited), then stop(). `hooks` are the caller's (a tick for a progress line).
  RunResult record(Command* command, RunHooks& hooks, const RunOptions& options = {std::chrono::milliseconds(100)});
  // The end, as perf record ends one: what the rings still hold drained into the file, the samples
  // the events counted as dropped written down (PERF_RECORD_LOST_SAMPLES), the header written.
  // Returns what was lost (Sampler::lost, summed).
  RecordLoss finish(const PerfDataHost& host);
  // perf record --switch-output: the file so far ended as finish() ends one (the samples lost
  // since the last switch written down), and the recording goes on into `fd` (a regular file's),
  // which begins as the first did: the events, the kernel's map, and the processes of the target as
  // they are now (every process for a CPU-wide target; else the target's and their descendants).
  // Returns what the ended file lost.
  RecordLoss switch_file(int fd, const PerfDataHost& host);

  // Its own sampler (or the first of the caller's still held), and the file.
  const Sampler& sampler() const { return *samplers_.front(); }
  const PerfDataWriter& file() const { return *file_; }

 private:
  Target target_;  // its own sampler's
  std::optional<Sampler> own_;
  std::vector<Sampler*> samplers_;
  RecordLoss released_;  // what the samplers let go before the end lost
  RecordLoss written_;   // what earlier files (switch_file) said was lost
  bool starts_at_exec_ = false;
  // The file being written, and the samples' way into it (held apart: switch_file replaces both).
  std::unique_ptr<PerfDataWriter> file_;
  std::unique_ptr<PerfDataRecordWriter> records_;
};

}  // namespace perfmon
