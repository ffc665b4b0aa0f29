// SPDX-License-Identifier: Apache-2.0
#include "kernel/text_file.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <fstream>

#include "kernel/fd.hpp"
#include "kernel/file_mapping.hpp"

namespace perfmon::kernel {

std::string read_first_line(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return line;
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
