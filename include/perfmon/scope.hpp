// SPDX-License-Identifier: Apache-2.0
// perfmon: measure one scope.
//
//   perfmon::CounterSession session(catalog.parse("task-clock,page-faults"), perfmon::Target::self());
//   {
//     perfmon::ScopedMeasurement measure(session);
//     work();
//   }  // stopped and read here
//   session.value(1).raw;  // page faults of work()
//
// With session.calibrate() first, value(i, perfmon::Overhead::Subtract) takes the measurement's
// own cost off, and report_warnings_to() says when a region is too small for its counts to mean
// much.
#pragma once

#include <string>
#include <vector>

#include "perfmon/session.hpp"

namespace perfmon {

class ScopedMeasurement {
 public:
  // Zeroes and starts the session's counters. Throws perfmon::Error.
  explicit ScopedMeasurement(CounterSession& session) : session_(session) {
    session_.reset();
    session_.start();
  }
  // Stops the counters and reads them into the session; a failed read leaves read_status() non-zero.
  ~ScopedMeasurement() {
    try {
      session_.stop();
    } catch (...) {
      // Stopping only fails if the fds went away; the read below reports that.
    }
    status_ = session_.read();
    if (status_out_ != nullptr) *status_out_ = status_;
    if (warnings_out_ != nullptr) {
      try {
        *warnings_out_ = session_.small_region_warnings(warn_fraction_);
      } catch (...) {
        // Out of memory for a sentence: the counts are read all the same.
      }
    }
  }
  ScopedMeasurement(const ScopedMeasurement&) = delete;
  ScopedMeasurement& operator=(const ScopedMeasurement&) = delete;

  // Where to store the read status (0 or errno) when the scope ends.
  void report_status_to(int& status) { status_out_ = &status; }
  // Where to store, when the scope ends, a warning for each event whose count the measurement's
  // own cost makes up more than `fraction` of (the session must be calibrated).
  void report_warnings_to(std::vector<std::string>& warnings, double fraction = 0.05) {
    warnings_out_ = &warnings;
    warn_fraction_ = fraction;
  }

 private:
  CounterSession& session_;
  int status_ = 0;
  int* status_out_ = nullptr;
  std::vector<std::string>* warnings_out_ = nullptr;
  double warn_fraction_ = 0.05;
};

}  // namespace perfmon
