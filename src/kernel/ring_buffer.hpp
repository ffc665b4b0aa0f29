// The mmap'd perf ring buffer: the user page followed by 2^n data pages that the kernel writes
// records into (data_head) and user space consumes (data_tail).
#pragma once

#include <linux/perf_event.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>

namespace perfmon::kernel {

class RingBuffer {
 public:
  RingBuffer() = default;
  // Maps 1 + data_pages pages of `fd`; data_pages must be a power of two. Throws perfmon::Error.
  RingBuffer(int fd, std::size_t data_pages);
  RingBuffer(RingBuffer&& other) noexcept;
  RingBuffer& operator=(RingBuffer&& other) noexcept;
  RingBuffer(const RingBuffer&) = delete;
  RingBuffer& operator=(const RingBuffer&) = delete;
  ~RingBuffer();

  bool mapped() const noexcept { return base_ != nullptr; }
  const perf_event_mmap_page* user_page() const noexcept { return static_cast<const perf_event_mmap_page*>(base_); }

  // Hands each complete record to `handle(const perf_event_header&)` in order and frees the space.
  // A record that wraps around the end of the buffer is first copied into a fixed scratch area, so
  // the drain never allocates. Returns the number of records handled.
  template <typename Handler>
  std::size_t drain(Handler&& handle) noexcept(noexcept(handle(std::declval<const perf_event_header&>()))) {
    if (base_ == nullptr) return 0;
    auto* page = static_cast<perf_event_mmap_page*>(base_);
    const std::uint64_t head = __atomic_load_n(&page->data_head, __ATOMIC_ACQUIRE);
    std::uint64_t tail = page->data_tail;
    const auto* data = static_cast<const unsigned char*>(base_) + page_size_;
    std::size_t handled = 0;
    while (tail < head) {
      const std::size_t offset = tail & (data_size_ - 1);
      perf_event_header header;
      copy_out(data, offset, &header, sizeof header);
      if (header.size < sizeof header || tail + header.size > head) break;
      const perf_event_header* record;
      if (offset + header.size <= data_size_) {
        record = reinterpret_cast<const perf_event_header*>(data + offset);
      } else {
        copy_out(data, offset, scratch_.data(), header.size);
        record = reinterpret_cast<const perf_event_header*>(scratch_.data());
      }
      handle(*record);
      tail += header.size;
      ++handled;
    }
    __atomic_store_n(&page->data_tail, tail, __ATOMIC_RELEASE);
    return handled;
  }

 private:
  void copy_out(const unsigned char* data, std::size_t offset, void* out, std::size_t size) const noexcept {
    const std::size_t first = size < data_size_ - offset ? size : data_size_ - offset;
    std::memcpy(out, data + offset, first);
    std::memcpy(static_cast<unsigned char*>(out) + first, data, size - first);
  }

  void* base_ = nullptr;
  std::size_t page_size_ = 0;
  std::size_t data_size_ = 0;
  alignas(8) std::array<unsigned char, 65536> scratch_{};  // a record's size is a u16
};

}  // namespace perfmon::kernel
