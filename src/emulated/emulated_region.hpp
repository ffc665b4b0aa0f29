// SPDX-License-Identifier: Apache-2.0
// A counting session's events on perfmon's emulated CPU (docs/emulated.md, "Regions"). A program
// running there cannot reach the kernel's counters (QEMU does not let it), so a session of its
// calling thread takes the thread's counts from the plugin instead: a region's count is the
// difference of two reads. A session on an emulated command (Target::emulated) reads the whole
// command's counts the same way. Start, stop, reset and read are async-signal-safe and allocate
// nothing, as the kernel-backed ones.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "emulated/emulated_events.hpp"
#include "perfmon/counter.hpp"
#include "perfmon/emulated.hpp"
#include "perfmon/event.hpp"

namespace perfmon::emulation {

// What a region needs to know of the session's options.
struct RegionOptions {
  bool skip_unsupported = true;
  bool inherit = true;
  bool user_space_reads = false;
  bool overflows = false;  // overflow periods, signals, stop_after or records asked for
};

class EmulatedRegion;

// The region a session counts on the emulated CPU: for an emulated command (`workload`), or for
// the calling thread (`calling_thread`) of a program that runs there; none where the kernel counts.
// Adds to `notes` what the session should say; throws perfmon::Error for what the emulated CPU
// cannot do (overflows; an event it does not count, without skip_unsupported).
std::optional<EmulatedRegion> emulated_region(const std::vector<EventGroup>& groups, bool calling_thread,
                                              const EmulatedWorkload* workload, const RegionOptions& options,
                                              std::vector<std::string>& notes);

class EmulatedRegion {
 public:
  int start() noexcept;
  int stop() noexcept;
  int reset() noexcept;
  // Each event's value so far into values[event * stride]; 0 or ENOSYS (the plugin did not answer).
  int read(CounterValue* values, std::size_t stride) const noexcept;

  // False: the program asked for the emulated CPU (PERFMON_EMULATED_CPU) but nothing answered, so
  // nothing counts and every event says why.
  bool answered() const noexcept { return answered_; }
  const std::string& unsupported_reason(std::size_t event) const noexcept { return reasons_[event]; }
  // The command whose counts these are; null for the calling thread's.
  const EmulatedWorkload* workload() const noexcept { return workload_; }

 private:
  friend std::optional<EmulatedRegion> emulated_region(const std::vector<EventGroup>&, bool, const EmulatedWorkload*,
                                                       const RegionOptions&, std::vector<std::string>&);
  bool read_counts(EmulatedCounts& counts) const noexcept;
  std::uint64_t since_start(std::size_t i, const EmulatedCounts& now) const noexcept;

  const EmulatedWorkload* workload_ = nullptr;
  std::vector<EmulatedSource> sources_;  // by event
  std::vector<std::string> reasons_;     // by event: why the emulated CPU does not count it, or ""
  std::vector<std::uint64_t> counted_;   // by event: up to the last stop()
  EmulatedCounts at_start_;              // while running
  std::uint64_t counted_ns_ = 0, started_ns_ = 0;
  bool answered_ = false;
  bool running_ = false, ever_started_ = false;
};

}  // namespace perfmon::emulation
