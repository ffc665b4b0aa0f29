// perfmon: measure one scope.
//
//   perfmon::CounterSession session(catalog.parse("task-clock,page-faults"), perfmon::Target::self());
//   {
//     perfmon::ScopedMeasurement measure(session);
//     work();
//   }  // stopped and read here
//   session.value(1).raw;  // page faults of work()
#pragma once

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
  }
  ScopedMeasurement(const ScopedMeasurement&) = delete;
  ScopedMeasurement& operator=(const ScopedMeasurement&) = delete;

  // Where to store the read status (0 or errno) when the scope ends.
  void report_status_to(int& status) { status_out_ = &status; }

 private:
  CounterSession& session_;
  int status_ = 0;
  int* status_out_ = nullptr;
};

}  // namespace perfmon
