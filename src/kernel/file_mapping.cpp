// SPDX-License-Identifier: Apache-2.0
#include "kernel/file_mapping.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <utility>

#include "kernel/fd.hpp"

namespace perfmon::kernel {

FileDescriptor open_regular_file(const std::string& path) {
  // O_NONBLOCK: opening a FIFO without a writer returns at once; O_NOCTTY: a terminal stays free.
  FileDescriptor file(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY));
  struct stat status;
  if (!file || ::fstat(file.get(), &status) != 0) return FileDescriptor();
  if (!S_ISREG(status.st_mode)) {
    errno = S_ISDIR(status.st_mode) ? EISDIR : EINVAL;
    return FileDescriptor();
  }
  ::fcntl(file.get(), F_SETFL, O_RDONLY);  // a regular file reads the same; clear O_NONBLOCK for what reads it
  return file;
}

std::optional<FileMapping> FileMapping::map(const std::string& path) {
  const FileDescriptor file = open_regular_file(path);
  struct stat status;
  if (!file || ::fstat(file.get(), &status) != 0) return std::nullopt;
  if (status.st_size == 0) {
    errno = EINVAL;
    return std::nullopt;
  }
  const auto size = static_cast<std::size_t>(status.st_size);
  void* base = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, file.get(), 0);
  if (base == MAP_FAILED) return std::nullopt;
  return FileMapping(base, size);
}

FileMapping::FileMapping(FileMapping&& other) noexcept
    : base_(std::exchange(other.base_, nullptr)), size_(std::exchange(other.size_, 0)) {}

FileMapping& FileMapping::operator=(FileMapping&& other) noexcept {
  if (this != &other) {
    if (base_ != nullptr) ::munmap(base_, size_);
    base_ = std::exchange(other.base_, nullptr);
    size_ = std::exchange(other.size_, 0);
  }
  return *this;
}

FileMapping::~FileMapping() {
  if (base_ != nullptr) ::munmap(base_, size_);
}

void FileMapping::release(std::size_t offset, std::size_t length) const noexcept {
  const auto page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
  const std::size_t first = (offset + page - 1) / page * page;
  const std::size_t end = std::min(offset + length, size_) / page * page;
  if (base_ != nullptr && first < end) ::madvise(static_cast<char*>(base_) + first, end - first, MADV_DONTNEED);
}

}  // namespace perfmon::kernel
