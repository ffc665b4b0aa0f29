// SPDX-License-Identifier: Apache-2.0
// perfmon: one counter reading, and what it means once multiplexing is taken into account.
#pragma once

#include <cstdint>

namespace perfmon {

struct CounterValue {
  std::uint64_t raw = 0;      // the count the kernel accumulated while the event was on the PMU
  std::uint64_t enabled = 0;  // ns the event was enabled
  std::uint64_t running = 0;  // ns it was actually counting (less than enabled when multiplexed)
  std::uint64_t lost = 0;     // samples lost (PERF_FORMAT_LOST), 0 where the kernel does not tell

  // Was the event ever on the PMU? A zero here means "not counted", never "zero events".
  bool counted() const noexcept { return running > 0; }
  // The fraction of the enabled time that the event was counting, in [0, 1].
  double running_fraction() const noexcept {
    return enabled == 0 ? 0.0 : static_cast<double>(running) / static_cast<double>(enabled);
  }
  // The count extrapolated to the whole enabled time: raw * enabled / running.
  double scaled() const noexcept {
    if (running == 0) return 0.0;
    if (running >= enabled) return static_cast<double>(raw);
    return static_cast<double>(raw) * static_cast<double>(enabled) / static_cast<double>(running);
  }

  CounterValue& operator+=(const CounterValue& other) noexcept {
    raw += other.raw;
    enabled += other.enabled;
    running += other.running;
    lost += other.lost;
    return *this;
  }
  // The change since an earlier reading of the same counter (for interval printing).
  CounterValue operator-(const CounterValue& earlier) const noexcept {
    return {raw - earlier.raw, enabled - earlier.enabled, running - earlier.running, lost - earlier.lost};
  }
};

}  // namespace perfmon
