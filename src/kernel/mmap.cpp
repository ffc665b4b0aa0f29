// SPDX-License-Identifier: Apache-2.0
#include "kernel/mmap.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

#include "arch/counter_read.hpp"

namespace perfmon::kernel {

namespace {

// (value * mult) >> shift without overflowing, split as the kernel documents it.
inline std::uint64_t scale_time(std::uint64_t value, std::uint32_t mult, std::uint16_t shift) noexcept {
  const std::uint64_t quotient = value >> shift, remainder = value & ((std::uint64_t{1} << shift) - 1);
  return quotient * mult + ((remainder * mult) >> shift);
}

constexpr std::size_t kLargestRecord = 1 << 16;  // perf_event_header.size is a u16

}  // namespace

RingReader::RingReader(perf_event_mmap_page* control, const std::byte* data, std::size_t size)
    : control_(control), data_(data), mask_(size - 1), wrapped_(kLargestRecord / sizeof(std::uint64_t)) {
  read_ = control_->data_tail;
  head_ = read_;
}

std::size_t RingReader::begin() noexcept {
  head_ = __atomic_load_n(&control_->data_head, __ATOMIC_ACQUIRE);
  return static_cast<std::size_t>(head_ - read_);
}

const perf_event_header* RingReader::next() noexcept {
  if (corrupt_ || read_ == head_) return nullptr;
  // The kernel keeps records 8-byte aligned and never more than a ring's worth unread: a page that
  // says otherwise is corrupt, and nothing is read on its word.
  if (read_ % 8 != 0 || head_ - read_ > mask_ + 1) {
    corrupt_ = true;
    return nullptr;
  }
  const std::uint64_t offset = read_ & mask_;
  // Records are 8-byte aligned and so is the ring's size: a header never straddles its end.
  const auto* header = reinterpret_cast<const perf_event_header*>(data_ + offset);
  const std::uint64_t size = header->size;
  if (size < sizeof(perf_event_header) || size % 8 != 0 || size > head_ - read_) {
    corrupt_ = true;
    return nullptr;
  }
  read_ += size;
  if (offset + size <= mask_ + 1) return header;
  // The record wraps around the end of the ring: copy its two parts in order.
  auto* copy = reinterpret_cast<std::byte*>(wrapped_.data());
  const std::size_t first = static_cast<std::size_t>(mask_ + 1 - offset);
  std::memcpy(copy, data_ + offset, first);
  std::memcpy(copy + first, data_, static_cast<std::size_t>(size) - first);
  return reinterpret_cast<const perf_event_header*>(copy);
}

void RingReader::consume() noexcept {
  __atomic_store_n(&control_->data_tail, read_, __ATOMIC_RELEASE);
}

EventMapping::EventMapping(EventMapping&& other) noexcept
    : base_(std::exchange(other.base_, nullptr)),
      length_(std::exchange(other.length_, 0)),
      page_size_(other.page_size_) {}

EventMapping& EventMapping::operator=(EventMapping&& other) noexcept {
  if (this != &other) {
    if (base_ != nullptr) ::munmap(base_, length_);
    base_ = std::exchange(other.base_, nullptr);
    length_ = std::exchange(other.length_, 0);
    page_size_ = other.page_size_;
  }
  return *this;
}

EventMapping::~EventMapping() {
  if (base_ != nullptr) ::munmap(base_, length_);
}

int EventMapping::map(int fd, std::size_t data_pages) noexcept {
  if (data_pages & (data_pages - 1)) return EINVAL;
  page_size_ = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
  const std::size_t length = (1 + data_pages) * page_size_;
  const int protection = data_pages == 0 ? PROT_READ : PROT_READ | PROT_WRITE;
  void* base = ::mmap(nullptr, length, protection, MAP_SHARED, fd, 0);
  if (base == MAP_FAILED) return errno;
  if (base_ != nullptr) ::munmap(base_, length_);
  base_ = base;
  length_ = length;
  return 0;
}

RingReader EventMapping::ring() const {
  return RingReader(page(), static_cast<const std::byte*>(base_) + page_size_, ring_bytes());
}

bool EventMapping::read_counter(UserRead& out) const noexcept {
  if constexpr (!arch::kUserCounterReads) {
    (void)out;
    return false;
  } else {
    // Retry until the sequence count is unchanged across the reads.
    const volatile perf_event_mmap_page* pc = page();
    std::uint32_t sequence, index;
    std::uint64_t count, enabled, running, pmc = 0, cycles = 0, time_offset = 0, time_cycles = 0, time_mask = ~0ull;
    std::uint32_t time_mult = 0;
    std::uint16_t time_shift = 0, width = 0;
    bool user_time = false, user_time_short = false;
    do {
      sequence = pc->lock;
      asm volatile("" ::: "memory");
      enabled = pc->time_enabled;
      running = pc->time_running;
      // Time is extrapolated only when the event has been multiplexed (enabled != running), as
      // the kernel's recipe does: otherwise the scaling factor is 1 whatever the times.
      user_time = pc->cap_user_time && enabled != running;
      if (user_time) {
        cycles = arch::read_timestamp();
        time_offset = pc->time_offset;
        time_mult = pc->time_mult;
        time_shift = pc->time_shift;
        user_time_short = pc->cap_user_time_short;
        if (user_time_short) {
          time_cycles = pc->time_cycles;
          time_mask = pc->time_mask;
        }
      }
      index = pc->index;
      count = pc->offset;
      if (!pc->cap_user_rdpmc || index == 0) return false;
      width = pc->pmc_width;
      pmc = arch::read_counter(index - 1);
      asm volatile("" ::: "memory");
    } while (pc->lock != sequence);
    if (width == 0 || width > 64) width = 64;
    // The counter is pmc_width bits wide: sign-extend it, then add the kernel's offset.
    count += static_cast<std::uint64_t>(static_cast<std::int64_t>(pmc << (64 - width)) >> (64 - width));
    if (user_time) {
      if (user_time_short) cycles = time_cycles + ((cycles - time_cycles) & time_mask);
      const std::uint64_t delta = time_offset + scale_time(cycles, time_mult, time_shift);
      enabled += delta;
      running += delta;  // index != 0: the event is on a counter now
    }
    out = {count, enabled, running};
    return true;
  }
}

}  // namespace perfmon::kernel
