// SPDX-License-Identifier: Apache-2.0
#include "kernel/text_file.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <string_view>

#include "kernel/fd.hpp"
#include "kernel/file_mapping.hpp"

namespace perfmon::kernel {

std::string read_first_line(const std::string& path) {
  // read(2) rather than a stream: a stream's buffer and locale cost more than the read itself, and
  // a command reads dozens of these files (each PMU's type and CPUs) at start.
  const FileDescriptor file(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  std::string line;
  if (!file) return line;
  char chunk[512];
  for (;;) {
    const ssize_t got = ::read(file.get(), chunk, sizeof chunk);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) return line;
    const std::string_view text(chunk, static_cast<std::size_t>(got));
    const std::size_t end = text.find('\n');
    line.append(text.substr(0, end));
    if (end != std::string_view::npos) return line;
  }
}

namespace {
// Every byte to the end of an open file; nullopt with errno set where a read fails.
std::optional<std::string> read_to_end(const FileDescriptor& file) {
  if (!file) return std::nullopt;
  std::string bytes;
  char chunk[64 * 1024];
  for (;;) {
    const ssize_t got = ::read(file.get(), chunk, sizeof chunk);
    if (got == 0) return bytes;
    if (got < 0) {
      if (errno == EINTR) continue;
      return std::nullopt;
    }
    bytes.append(chunk, static_cast<std::size_t>(got));
  }
}
}  // namespace

std::optional<std::string> read_whole_file(const std::string& path) {
  return read_to_end(FileDescriptor(::open(path.c_str(), O_RDONLY | O_CLOEXEC)));
}

std::optional<std::string> read_regular_file(const std::string& path) {
  return read_to_end(open_regular_file(path));
}

}  // namespace perfmon::kernel
