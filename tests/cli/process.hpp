// SPDX-License-Identifier: Apache-2.0
// Runs a program as a user would, and captures what it prints and how it exits.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

namespace perfmon::testing {

struct Result {
  int exit_code = -1;  // or 128 + signal
  std::string out, err;
};

class Process {
 public:
  explicit Process(const std::vector<std::string>& argv);
  ~Process();
  Process(const Process&) = delete;
  Process& operator=(const Process&) = delete;

  pid_t pid() const { return pid_; }
  void write_stdin(const std::string& text);
  void close_stdin();
  // Reads stdout / stderr until `text` has appeared (or the stream ends). Returns what was read.
  std::string read_stdout_until(const std::string& text);
  std::string read_stderr_until(const std::string& text);
  void signal(int signo) const;
  Result wait();

 private:
  pid_t pid_ = -1;
  int in_ = -1, out_ = -1, err_ = -1;
  std::string out_text_, err_text_;
};

Result run(const std::vector<std::string>& argv);

// A file's bytes ("" where it cannot be read).
std::string read_file(const std::string& path);

// Copies `program` to dir/name, strips it and puts its debug information into dir/name.debug, which
// a .gnu_debuglink in it names (as a distribution ships a program and its -dbgsym package).
// Returns the stripped copy's path.
std::string stripped_copy_with_debug_file(const std::string& program, const std::string& dir, const std::string& name);

// The non-empty lines of a program's output.
std::vector<std::string> lines_of(const std::string& text);

}  // namespace perfmon::testing
