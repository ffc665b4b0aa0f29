// SPDX-License-Identifier: Apache-2.0
// perfmon: how wrong a multiplexed count can be. A counter that was on the PMU for only part of the
// time is extrapolated (raw x enabled / running); SliceStatistics watches the rate of the event in
// each time slice it ran and gives the extrapolated total with its standard error.
//
//   perfmon::SliceStatistics slices;
//   for each slice the event ran:  slices.add(counted_in_slice, ns_on_the_pmu_in_slice);
//   perfmon::CountEstimate total = slices.estimate(enabled_ns);  // value +- standard_error
#pragma once

#include <cstdint>
#include <optional>

namespace perfmon {

struct CountEstimate {
  double value = 0;                      // the count extrapolated to the whole enabled time
  std::optional<double> standard_error;  // of value; none with fewer than two slices
  std::uint64_t slices = 0;              // time slices the event was observed in
  // The standard error relative to the value, in percent (perf's "+- x%"); none when unknown. An
  // error of 0 is 0% even for a value of 0 (no slice saw the event: nothing varied).
  std::optional<double> relative_error_percent() const noexcept {
    if (!standard_error) return std::nullopt;
    if (*standard_error == 0) return 0.0;
    if (value == 0) return std::nullopt;
    return *standard_error / value * 100.0;
  }
};

// The ratio estimator of survey sampling, applied to time: the slices an event ran in are a sample
// of the enabled time, the event's rate in them estimates its rate in the time it did not run.
//   rate      m   = sum(c) / sum(d)                      (c: count in a slice, d: its ns on the PMU)
//   Var(m)       = sum((c - m d)^2) / sum(d)^2 * K/(K-1)  (K slices)
//   total        = m * T                                 (T: enabled ns)
//   stderr       = T * sqrt(Var(m) * (1 - sum(d)/T))     (finite population: 0 when never multiplexed)
// It assumes the slices are spread over the run as a random sample would be, which round-robin
// switching approximates; a program whose phases line up with the switching defeats any estimate.
// Allocates nothing (it runs in the event sets' signal handler).
class SliceStatistics {
 public:
  void add(double count, double running_ns) noexcept {
    if (running_ns <= 0) return;
    ++slices_;
    sum_c_ += count;
    sum_d_ += running_ns;
    sum_cc_ += count * count;
    sum_cd_ += count * running_ns;
    sum_dd_ += running_ns * running_ns;
  }
  void clear() noexcept { *this = SliceStatistics(); }
  // The slices of another location of the same event.
  SliceStatistics& operator+=(const SliceStatistics& other) noexcept {
    slices_ += other.slices_;
    sum_c_ += other.sum_c_;
    sum_d_ += other.sum_d_;
    sum_cc_ += other.sum_cc_;
    sum_cd_ += other.sum_cd_;
    sum_dd_ += other.sum_dd_;
    return *this;
  }
  std::uint64_t slices() const noexcept { return slices_; }
  double running_ns() const noexcept { return sum_d_; }

  CountEstimate estimate(double enabled_ns) const noexcept;

 private:
  std::uint64_t slices_ = 0;
  double sum_c_ = 0, sum_d_ = 0, sum_cc_ = 0, sum_cd_ = 0, sum_dd_ = 0;
};

}  // namespace perfmon
