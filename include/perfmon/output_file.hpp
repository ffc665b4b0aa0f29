// SPDX-License-Identifier: Apache-2.0
// perfmon: where a report or a recording goes — a stream (stdout or stderr), or a file named by
// the user, written so that nothing is lost or half-written (perfmon's -o, perfmonpy's output=).
//
// A regular file (or a new one) is replaced atomically: the report is written to an unnamed file in
// the same directory (O_TMPFILE) and put in place only once complete, so that a failed, interrupted
// or killed run never leaves a half-written file, nor a temporary one. The replacement keeps the old
// file's owner, group and mode where it may, never its set-id bits, and says what it could not keep;
// a file that its writer may not write (0444, say) is refused, as a shell's `>` does. Anything else — a character
// device, a FIFO — is written through, never replaced, and its write errors are reported (a FIFO without a reader is
// refused at once). A symlink is followed and the file it names is the one written, except one that another user put in
// a sticky shared directory such as /tmp (the rule of fs.protected_symlinks, applied whatever the sysctl says); a
// symlink to nothing is refused.
#pragma once

#include <sys/stat.h>
#include <sys/types.h>

#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

#include "perfmon/error.hpp"

namespace perfmon {

class OutputFile {
 public:
  // path empty: write to `fallback`. Throws perfmon::Error when the path cannot be written. A new
  // file is created with `new_file_mode` less the umask.
  OutputFile(const std::string& path, std::FILE* fallback, mode_t new_file_mode = 0666);
  ~OutputFile();  // an uncommitted replacement leaves the old file as it was
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;

  // Throws perfmon::Error when the data cannot be written (a full disk, say).
  void write(std::string_view text);
  // Flushes and syncs; a replacement is then put in place. Throws perfmon::Error.
  void commit();
  // The regular file a replacement puts aside is kept as PATH + suffix (perf record's perf.data ->
  // perf.data.old), replacing a regular file of that name; an empty one is not kept, and where that
  // name is held by something else (a directory, a FIFO) the file is replaced and changes() says so.
  void keep_replaced_as(std::string suffix) { kept_suffix_ = std::move(suffix); }
  // What the replacement could not keep of the old file ("without its set-user-id bit", "now owned
  // by uid 65534 (was uid 0)"), for the caller to say once committed; empty where it kept it all.
  const std::vector<std::string>& changes() const { return changes_; }
  bool is_file() const { return !path_.empty(); }
  const std::string& path() const { return path_; }
  // The descriptor of a regular file being written in place of the old one, for a writer that seeks
  // (perf.data's header is written last); -1 for a device, a FIFO or a stream. Flushes write()'s text.
  int seekable_fd();

 private:
  [[noreturn]] void fail(int err) const;
  // Opens an unnamed file beside `target`, with the old file's owner and mode when there is one.
  void open_replacement(const std::string& target, const struct stat* old_file);
  void keep_owner_and_mode(int fd, const struct stat& old_file);
  void keep_replaced();  // the old file to PATH + kept_suffix_, before the replacement goes in

  std::string path_;       // as given
  std::string target_;     // the file a replacement goes to (the symlink's target, resolved)
  std::string temp_path_;  // a named temporary file, where O_TMPFILE is not supported
  mode_t new_file_mode_;
  std::vector<std::string> changes_;  // what the replacement could not keep of the old file
  std::string kept_suffix_;           // keep_replaced_as's
  std::FILE* stream_ = nullptr;
  bool replacing_ = false;  // false: written through (a device, a FIFO) or a stream
  bool committed_ = false;
};

// Throws perfmon::Error (InvalidArgument) when `output` names the file that `input` names, through
// whatever path or link: writing the output would replace what is being read (`perfmon report
// --svg perf.data` reading perf.data by default). Nothing is refused where either does not exist.
void refuse_output_over_input(const std::string& output, const std::string& input);

}  // namespace perfmon
