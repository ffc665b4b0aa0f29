// SPDX-License-Identifier: Apache-2.0
// perfmon stat's counting in parts: -D (counting on after a delay, or, with -1, only when told)
// and --control (perf's control channel: enable, disable, ping; perfmon's enable NAME and
// disable NAME count named regions apart). The run loop wakes for the channel's signal and for the
// delay's end, and asks the controller to act; the rows then show each region's counts.
#pragma once

#include <signal.h>

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "perfmon/control_channel.hpp"
#include "perfmon/measurement.hpp"
#include "perfmon/regions.hpp"

namespace perfmon::cli {

class StatControl {
 public:
  // `delay_ms`: 0 counts from the start, -1 waits for "enable", more waits that long. `channel`:
  // --control's value, or empty.
  StatControl(long delay_ms, const std::string& channel, bool verbose);
  ~StatControl();
  StatControl(const StatControl&) = delete;
  StatControl& operator=(const StatControl&) = delete;

  // Whether the measurement starts with counting off (MeasurementRequest::start_paused).
  bool starts_paused() const noexcept { return delay_ms_ != 0; }
  // The signal the channel raises when a command arrives (0: none), for the run loop to wait for.
  int signal_number() const noexcept { return channel_ ? signo_ : 0; }
  // When the run loop must wake next for the delay's end, if it has not come.
  std::optional<std::chrono::steady_clock::time_point> deadline() const;

  // At the run's start (the measurement started, the command running).
  void started();
  // On every wake of the run loop: the delay's end, and the commands waiting on the channel.
  void act(Measurement& measurement);
  // The measurement's reading with a row set per region (stat_rows, stat_interval_rows).
  Reading reading(const Measurement& measurement) const;
  // One line per region for under the table: how often and how long it was open.
  std::vector<std::string> footnotes() const;

 private:
  void apply(Measurement& measurement, const ControlCommand& command);
  // Counting on while enabled or any region is open, off otherwise.
  void set_counting(Measurement& measurement, bool on);

  long delay_ms_;
  bool verbose_;
  int signo_;
  std::optional<ControlChannel> channel_;
  sigset_t mask_before_;
  std::chrono::steady_clock::time_point start_;
  bool delay_due_ = false;
  bool enabled_ = false;   // "enable" (or the start, or the delay's end) without "disable" since
  bool counting_ = false;  // the counters' state
  RegionCounts regions_;
};

}  // namespace perfmon::cli
