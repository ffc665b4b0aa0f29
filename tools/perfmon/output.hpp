// Where a subcommand's report goes: a stream (stdout or stderr), or a file given with -o that is
// written beside its final name and renamed into place only once complete, so that a failed or
// interrupted run never leaves a half-written file.
#pragma once

#include <cstdio>
#include <string>
#include <string_view>

namespace perfmon::cli {

class Output {
 public:
  // path empty: write to `fallback`.
  Output(const std::string& path, std::FILE* fallback);
  ~Output();  // an uncommitted file is removed
  Output(const Output&) = delete;
  Output& operator=(const Output&) = delete;

  // Throws perfmon::Error when the data cannot be written (a full disk, say).
  void write(std::string_view text);
  // Flushes, syncs and renames the file into place. Throws perfmon::Error.
  void commit();
  bool is_file() const { return !path_.empty(); }

 private:
  [[noreturn]] void fail(int err);
  std::string path_;
  std::string temp_path_;
  std::FILE* stream_ = nullptr;
  bool committed_ = false;
};

}  // namespace perfmon::cli
