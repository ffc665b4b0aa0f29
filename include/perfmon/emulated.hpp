// SPDX-License-Identifier: Apache-2.0
// perfmon: counts without a PMU — a command run on QEMU's emulated CPU (qemu-user) with perfmon's
// plugin, which counts exactly what the emulated CPU executes, the same from run to run
// (docs/emulated.md). These are the emulated CPU's counts, not the host's: label them so.
#pragma once

#include <linux/perf_event.h>
#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "perfmon/cache_geometry.hpp"
#include "perfmon/counter.hpp"
#include "perfmon/event.hpp"
#include "perfmon/workload.hpp"

namespace perfmon {

// Whether this machine can emulate, and with what.
struct EmulatorInfo {
  bool available = false;
  std::string qemu;          // the host architecture's qemu-user: "/usr/bin/qemu-x86_64"
  std::string qemu_version;  // "7.2.22"; only from qemu_version(), as finding QEMU does not run it
  std::string plugin;        // perfmon's plugin: ".../perfmon/libperfmon-qemu-plugin.so"
  int plugin_api_version = 0;
  std::string reason;  // when not available: what is missing and what to do
};
// Finds QEMU and the plugin without running either (cheap enough for every perfmon stat).
EmulatorInfo emulator_info();
// What `qemu --version` says ("7.2.22"), run without a shell; empty if it cannot tell.
std::string qemu_version(const std::string& qemu);

struct EmulatorOptions {
  std::string qemu;    // a qemu-user to use; default: qemu-<the program's architecture> on PATH
  std::string plugin;  // default: $PERFMON_QEMU_PLUGIN, or the plugin installed with the library
  // Run the programs the command execs (of the same architecture, or scripts) under QEMU too.
  bool follow_exec = true;
  // Count branches by kind (decoded once per translated block: cheap).
  bool branches = false;
  // Count loads and stores (a call per memory access: slower).
  bool memory_accesses = false;
  // Run the branch predictor model and count its mispredictions (implies branches).
  bool branch_prediction = false;
  // Run the cache model (L1I, L1D, LL; per thread, LRU) and count its misses (implies
  // memory_accesses: a call per access).
  bool caches = false;
  // The model's caches: a level left empty (size 0) is the host's (host_cache_hierarchy()).
  // EmulatedWorkload::options() has them all, with their source.
  CacheHierarchy cache_hierarchy;
  // Sampling: a sample every `sample_period` instructions of each thread (0: no sampling), with
  // the instruction's address and, with sample_callchains, the return addresses of the calls the
  // thread is in (a shadow stack of its calls and returns, at most 125 deep). Read with
  // EmulatedWorkload::read_samples(). The records wait in an unnamed file in `samples_directory`
  // (default: $TMPDIR, else /tmp) until then.
  std::uint64_t sample_period = 0;
  bool sample_callchains = false;
  std::string samples_directory;

  // These options with what the events need turned on.
  EmulatorOptions enabled_for(const std::vector<EventGroup>& groups) const;
};

// What the command's emulated CPUs have executed so far, summed over all its processes and threads.
struct EmulatedCounts {
  std::uint64_t instructions = 0;
  std::uint64_t conditional_branches = 0;  // jcc, loop, jrcxz; b.cond, cbz, cbnz, tbz, tbnz
  std::uint64_t direct_branches = 0;       // jmp and call to an immediate address; b, bl
  std::uint64_t indirect_branches = 0;     // jmp and call through a register or memory, ret; br, blr, ret
  std::uint64_t loads = 0;
  std::uint64_t stores = 0;
  std::uint64_t branch_misses = 0;  // conditional and indirect branches the predictor model missed
  // The cache model's misses: an L1 miss looks the line up in the LL.
  std::uint64_t l1d_load_misses = 0, l1d_store_misses = 0;  // loads and stores that missed L1D
  std::uint64_t l1i_misses = 0;                             // instruction fetches (per line) that missed L1I
  std::uint64_t ll_load_misses = 0, ll_store_misses = 0, ll_instruction_misses = 0;  // of those, LL misses too
  std::uint64_t branches() const { return conditional_branches + direct_branches + indirect_branches; }
  std::uint64_t ll_accesses() const { return l1d_load_misses + l1d_store_misses + l1i_misses; }
  std::uint64_t ll_misses() const { return ll_load_misses + ll_store_misses + ll_instruction_misses; }
  std::uint64_t processes = 0;           // QEMU processes: the command's own, forked and exec'd ones
  std::uint64_t threads = 0;             // guest threads, each process's first included
  std::uint64_t execs_followed = 0;      // execs run under QEMU again
  std::uint64_t execs_not_followed = 0;  // execs that ran natively, uncounted
  std::uint64_t samples = 0;             // with sampling: the samples taken
  std::uint64_t samples_lost = 0;        // of those, the ones the samples file could not take (a full disk)
};

// A command run on the emulated CPU: like Workload, it is held before it starts, and its counts
// can be read at any time (lock-free, no allocation).
class EmulatedWorkload {
 public:
  // Finds the program (as execvp would), QEMU for its architecture (x86-64 or arm64) and the
  // plugin. Throws perfmon::Error: CommandFailed for a program that cannot be run (missing, not
  // executable, of an architecture QEMU is not asked to emulate), Unsupported for a missing QEMU or
  // plugin, each with what to do.
  explicit EmulatedWorkload(std::vector<std::string> argv, const EmulatorOptions& options = {});
  EmulatedWorkload(const EmulatedWorkload&) = delete;
  EmulatedWorkload& operator=(const EmulatedWorkload&) = delete;
  ~EmulatedWorkload();

  pid_t pid() const;
  const std::vector<std::string>& argv() const { return argv_; }
  const std::string& architecture() const { return architecture_; }  // "x86_64", "aarch64"
  const std::string& qemu() const { return qemu_; }
  const EmulatorOptions& options() const { return options_; }

  // Lets the command run (Workload::start).
  void start();
  // Waits for the command (QEMU) to exit. Throws perfmon::Error (Unsupported) if QEMU refused the
  // plugin before running anything; QEMU has then printed why.
  bool wait(WorkloadExit& exit, bool block = true);
  void signal(int signo) const;

  EmulatedCounts read() const noexcept;
  // The first exec that ran natively, and why ("" if none).
  std::string first_exec_not_followed() const;

  // With sampling (EmulatorOptions::sample_period): the event the samples are of, as perf.data
  // describes it: instructions:u, sampled every sample_period, sample_type PERF_SAMPLE_IP | TID |
  // TIME | PERIOD (and CALLCHAIN), sample_id_all.
  perf_event_attr sample_attr() const;
  // Once the command has exited, hands each record the plugin wrote to `handler`, in time order,
  // as the kernel writes them into a ring (perf.data's data section takes them as they are):
  // PERF_RECORD_SAMPLE of sample_attr(), PERF_RECORD_COMM naming each thread before its first
  // sample, PERF_RECORD_MMAP2 of each program and library file before the first sample in it.
  // Returns the number of samples handed: EmulatedCounts::samples less those lost, and less those
  // still buffered when a signal killed a process (at most its last 0.1 s of them). Throws
  // perfmon::Error if the file cannot be read.
  std::uint64_t read_samples(const std::function<void(const perf_event_header&)>& handler) const;

 private:
  struct Counters;
  struct SamplesFile;
  std::vector<std::string> argv_;
  std::string architecture_;
  std::string qemu_;
  EmulatorOptions options_;
  std::unique_ptr<Counters> counters_;
  std::unique_ptr<SamplesFile> samples_;
  std::unique_ptr<Workload> workload_;
};

}  // namespace perfmon
