// SPDX-License-Identifier: Apache-2.0
#include "emulated/emulated_region.hpp"

#include <time.h>

#include <algorithm>
#include <cerrno>

#include "emulated/emulated_thread.hpp"
#include "perfmon/error.hpp"

namespace perfmon::emulation {

namespace {

std::uint64_t now_ns() noexcept {
  timespec now{};
  ::clock_gettime(CLOCK_MONOTONIC, &now);
  return static_cast<std::uint64_t>(now.tv_sec) * 1'000'000'000u + static_cast<std::uint64_t>(now.tv_nsec);
}

}  // namespace

bool EmulatedRegion::read_counts(EmulatedCounts& counts) const noexcept {
  if (workload_ == nullptr) return read_emulated_thread(counts);
  counts = workload_->read();
  return true;
}

// Event i's count from start() to `now`.
std::uint64_t EmulatedRegion::since_start(std::size_t i, const EmulatedCounts& now) const noexcept {
  return emulated_value(sources_[i], now) - emulated_value(sources_[i], at_start_);
}

int EmulatedRegion::start() noexcept {
  if (running_ || !answered_) return 0;
  if (!read_counts(at_start_)) return ENOSYS;
  started_ns_ = now_ns();
  running_ = ever_started_ = true;
  return 0;
}

int EmulatedRegion::stop() noexcept {
  if (!running_) return 0;
  EmulatedCounts now;
  if (!read_counts(now)) return ENOSYS;
  for (std::size_t i = 0; i < sources_.size(); ++i) counted_[i] += since_start(i, now);
  counted_ns_ += now_ns() - started_ns_;
  running_ = false;
  return 0;
}

int EmulatedRegion::reset() noexcept {
  std::fill(counted_.begin(), counted_.end(), 0);
  counted_ns_ = 0;
  if (running_ && !read_counts(at_start_)) return ENOSYS;
  started_ns_ = now_ns();
  return 0;
}

int EmulatedRegion::read(CounterValue* values, std::size_t stride) const noexcept {
  if (!answered_) return 0;
  EmulatedCounts now;
  if (running_ && !read_counts(now)) return ENOSYS;
  // Never multiplexed: enabled and running alike, and at least 1 ns once started ("counted").
  const std::uint64_t ns =
      ever_started_ ? std::max<std::uint64_t>(1, counted_ns_ + (running_ ? now_ns() - started_ns_ : 0)) : 0;
  for (std::size_t i = 0; i < sources_.size(); ++i) {
    std::uint64_t count = counted_[i];
    if (running_) count += since_start(i, now);
    values[i * stride] = sources_[i] == EmulatedSource::None ? CounterValue{} : CounterValue{count, ns, ns, 0};
  }
  return 0;
}

std::optional<EmulatedRegion> emulated_region(const std::vector<EventGroup>& groups, bool calling_thread,
                                              const EmulatedWorkload* workload, const RegionOptions& options,
                                              std::vector<std::string>& notes) {
  EmulatedCpuHere here = calling_thread ? emulated_cpu_here() : EmulatedCpuHere{};
  if (workload != nullptr) {
    here.state = EmulatedCpuHere::State::Emulated;
    here.counting = workload->options();
  }
  if (here.state == EmulatedCpuHere::State::Native) return std::nullopt;
  if (options.overflows)
    throw Error(ErrorKind::Unsupported,
                "this program runs on perfmon's emulated CPU, which raises no overflow signals: count without "
                "overflow periods there, or run the program natively on a machine with a PMU.",
                ENOTSUP);
  EmulatedRegion region;
  region.workload_ = workload;
  for (const EventGroup& group : groups)
    for (const Event& event : group.events) {
      std::string reason = here.why;
      region.sources_.push_back(here.state == EmulatedCpuHere::State::Emulated
                                    ? emulated_source(event, here.counting, reason)
                                    : EmulatedSource::None);
      if (!reason.empty() && !options.skip_unsupported)
        throw Error(ErrorKind::Unsupported, "cannot count '" + event.name + "': " + reason + ".", ENOTSUP);
      region.reasons_.push_back(std::move(reason));
    }
  region.counted_.assign(region.sources_.size(), 0);
  region.answered_ = here.state == EmulatedCpuHere::State::Emulated;
  if (!region.answered_) return region;
  // A whole command's reading says what was emulated in its summary (emulated_summary).
  if (workload == nullptr)
    notes.push_back(std::string("counted on perfmon's emulated CPU: the counts are the calling thread's") +
                    (options.inherit ? ", not those of the threads and processes it starts." : "."));
  if (here.shared_slot)
    notes.push_back(
        "the emulated CPU ran out of counter slots, so this thread's counts are shared with other threads': "
        "regions are not exact (run fewer threads at once).");
  if (options.user_space_reads)
    notes.push_back(
        "user-mode counter reads are off: the emulated CPU's counts are read with a system call that "
        "its plugin answers.");
  return region;
}

}  // namespace perfmon::emulation
