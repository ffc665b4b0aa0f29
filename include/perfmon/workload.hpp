// SPDX-License-Identifier: Apache-2.0
// perfmon: a command to measure, started stopped so that counting can begin exactly at its exec.
#pragma once

#include <sys/resource.h>
#include <sys/types.h>

#include <optional>
#include <string>
#include <vector>

#include "perfmon/error.hpp"

namespace perfmon {

// A command word found as execvp finds it: a path if it has a slash, else the first executable
// file of that name on PATH. Sets errno (ENOENT, EACCES) when there is none.
std::optional<std::string> find_program(const std::string& name);
// The one sentence for a command `name` that cannot be run (exec's or find_program's errno `err`).
Error cannot_run(const std::string& name, int err);

struct WorkloadExit {
  int status = 0;         // wait(2) status
  rusage usage{};         // its resources (user and system time)
  int exit_code() const;  // the exit code, or 128 + signal, as a shell reports it
};

class Workload {
 public:
  // Forks a child that waits before calling execvp(argv). Throws perfmon::Error if it cannot fork.
  explicit Workload(std::vector<std::string> argv);
  Workload(const Workload&) = delete;
  Workload& operator=(const Workload&) = delete;
  // Kills and reaps a child that was never waited for.
  ~Workload();

  pid_t pid() const { return pid_; }
  const std::vector<std::string>& argv() const { return argv_; }

  // Lets the child exec. Throws perfmon::Error of kind CommandFailed (errnum: exec's errno) if the
  // command cannot be run; the child has then exited with status 127.
  void start();
  // Waits for the child to exit. Interrupted by a signal, it returns false and may be called again.
  bool wait(WorkloadExit& exit, bool block = true);
  // Sends a signal to the child.
  void signal(int signo) const;

 private:
  std::vector<std::string> argv_;
  pid_t pid_ = -1;
  int go_fd_ = -1;     // parent writes a byte here to let the child exec
  int error_fd_ = -1;  // the child writes its exec errno here; closes on a successful exec
  bool reaped_ = false;
};

}  // namespace perfmon
