// perfmon: errors raised while setting a measurement up.
//
// Setup (parsing, resolving, opening) reports failures by throwing perfmon::Error.
// The read path never throws: it returns a status (see session.hpp).
#pragma once

#include <stdexcept>
#include <string>

namespace perfmon {

// One failure, with the errno that caused it (0 when no system call failed) and a
// sentence that says what went wrong and what to do about it.
class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& message, int errnum = 0) : std::runtime_error(message), errnum_(errnum) {}

  // errno of the failed system call, or 0.
  int errnum() const noexcept { return errnum_; }

 private:
  int errnum_;
};

}  // namespace perfmon
