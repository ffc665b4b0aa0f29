// SPDX-License-Identifier: Apache-2.0
// perfmon: errors raised while setting a measurement up.
//
// Setup (parsing, resolving, opening) reports failures by throwing perfmon::Error: a kind for
// programs, the errno of the failed system call, and one sentence for people. The sentence says
// what went wrong and, where the library can know it, what to do; it never names a command-line
// flag (a tool adds its own advice by kind). The read path never throws: it returns a status.
#pragma once

#include <stdexcept>
#include <string>

namespace perfmon {

enum class ErrorKind {
  InvalidEvent,     // an event string that is malformed, or whose terms, modifiers or values are wrong
  UnknownEvent,     // a well-formed name that no source of this machine knows (nearest names in the sentence)
  Unsupported,      // this machine cannot count it: no PMU, or the PMU lacks the event or a feature
  OtherCpuModel,    // an event of another CPU model than this machine's: it can be encoded, not counted
  Permission,       // the kernel's settings, capabilities or ownership forbid it
  NoSuchTarget,     // the process, thread, CPU or cgroup does not exist
  Limit,            // a resource limit: open files, counters, memory, group size
  InvalidArgument,  // a value the library cannot use (an empty event list, a malformed CPU list, ...)
  CommandFailed,    // the command to measure could not be started (errnum: exec's errno)
  System,           // any other failed system call (errnum says which)
};

class Error : public std::runtime_error {
 public:
  Error(ErrorKind kind, const std::string& message, int errnum = 0)
      : std::runtime_error(message), kind_(kind), errnum_(errnum) {}

  ErrorKind kind() const noexcept { return kind_; }
  // errno of the failed system call, or 0.
  int errnum() const noexcept { return errnum_; }

 private:
  ErrorKind kind_;
  int errnum_;
};

}  // namespace perfmon
