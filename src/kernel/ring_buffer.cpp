#include "kernel/ring_buffer.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>
#include <utility>

#include "perfmon/error.hpp"

namespace perfmon::kernel {

RingBuffer::RingBuffer(int fd, std::size_t data_pages) {
  if (data_pages == 0 || (data_pages & (data_pages - 1)) != 0)
    throw Error("ring buffer size must be a power of two pages, not " + std::to_string(data_pages) + ".", EINVAL);
  page_size_ = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
  data_size_ = data_pages * page_size_;
  void* base = ::mmap(nullptr, page_size_ + data_size_, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (base == MAP_FAILED) {
    int err = errno;
    throw Error(std::string("cannot map the perf ring buffer: ") + std::strerror(err) +
                    (err == EPERM || err == ENOMEM
                         ? "; the locked-memory limit is too low: raise 'ulimit -l' or kernel.perf_event_mlock_kb."
                         : "."),
                err);
  }
  base_ = base;
}

RingBuffer::RingBuffer(RingBuffer&& other) noexcept
    : base_(std::exchange(other.base_, nullptr)), page_size_(other.page_size_), data_size_(other.data_size_) {}

RingBuffer& RingBuffer::operator=(RingBuffer&& other) noexcept {
  if (this != &other) {
    if (base_ != nullptr) ::munmap(base_, page_size_ + data_size_);
    base_ = std::exchange(other.base_, nullptr);
    page_size_ = other.page_size_;
    data_size_ = other.data_size_;
  }
  return *this;
}

RingBuffer::~RingBuffer() {
  if (base_ != nullptr) ::munmap(base_, page_size_ + data_size_);
}

}  // namespace perfmon::kernel
