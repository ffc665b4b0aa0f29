// SPDX-License-Identifier: Apache-2.0
// A regular file mapped read-only, for readers of large files (perf.data): pages come in as they
// are read, and pages already read can be given back, so that memory stays bounded by a window
// rather than the file's size.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "kernel/fd.hpp"

namespace perfmon::kernel {

// `path` opened for reading only if it is a regular file, without ever waiting: a FIFO or a device
// named by a recording (whoever made it chose the path) is refused, not opened and read. Invalid,
// with errno set (EINVAL for what is not a regular file), when it cannot be opened.
FileDescriptor open_regular_file(const std::string& path);

class FileMapping {
 public:
  // The file mapped whole; nullopt with errno set when it cannot be opened, is not a regular file,
  // is empty, or cannot be mapped (the caller then reads it another way).
  static std::optional<FileMapping> map(const std::string& path);
  FileMapping(FileMapping&& other) noexcept;
  FileMapping& operator=(FileMapping&& other) noexcept;
  FileMapping(const FileMapping&) = delete;
  FileMapping& operator=(const FileMapping&) = delete;
  ~FileMapping();

  std::string_view bytes() const noexcept { return {static_cast<const char*>(base_), size_}; }
  // Drops the pages wholly inside [offset, offset + length) from memory; reading them again
  // brings them back from the file.
  void release(std::size_t offset, std::size_t length) const noexcept;

 private:
  FileMapping(void* base, std::size_t size) noexcept : base_(base), size_(size) {}
  void* base_ = nullptr;
  std::size_t size_ = 0;
};

}  // namespace perfmon::kernel
