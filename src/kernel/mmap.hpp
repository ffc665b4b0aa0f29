// SPDX-License-Identifier: Apache-2.0
// The mmap of a perf event fd (perf_event_open(2), "MMAP layout"). Its first page, the
// perf_event_mmap_page, serves two uses: it tells user mode which hardware counter holds the event
// and how to turn its raw value into the event's count (a read without a system call), and it
// holds the head and tail of the ring buffer, whose 2^n data pages follow it for an event that
// samples. libperf's perf_mmap is the same one-mapping, two-uses object.
#pragma once

#include <linux/perf_event.h>

#include <cstddef>
#include <cstdint>
#include <vector>

namespace perfmon::kernel {

struct UserRead {
  std::uint64_t count = 0;
  std::uint64_t enabled = 0;
  std::uint64_t running = 0;
};

// Reads the records the kernel writes into a ring buffer, as libperf's perf_mmap__read_init,
// read_event and consume do: data_head is read with acquire semantics, the records between the
// tail and that head are handed out in order, and data_tail is written with release semantics when
// they are consumed, which gives their space back to the kernel. A record that wraps around the end
// of the ring is copied whole into a buffer of the reader's, allocated once.
class RingReader {
 public:
  // control: the user page; data: the ring, `size` bytes (a power of two). Works on any memory laid
  // out that way (tests build one by hand).
  RingReader(perf_event_mmap_page* control, const std::byte* data, std::size_t size);

  // Takes the records the kernel has written so far. Returns how many bytes they hold.
  std::size_t begin() noexcept;
  // The next record taken by begin(), or nullptr when all are read (or the ring holds a record
  // whose size is impossible: corrupt() then says so). Valid until the next call.
  const perf_event_header* next() noexcept;
  // Gives the space of the records handed out so far back to the kernel.
  void consume() noexcept;
  bool corrupt() const noexcept { return corrupt_; }

 private:
  perf_event_mmap_page* control_;
  const std::byte* data_;
  std::uint64_t mask_;
  std::uint64_t head_ = 0;  // as read by begin()
  std::uint64_t read_ = 0;  // the next record's position
  bool corrupt_ = false;
  std::vector<std::uint64_t> wrapped_;  // one record's worth (a record is at most 64 KiB)
};

class EventMapping {
 public:
  EventMapping() = default;
  EventMapping(EventMapping&& other) noexcept;
  EventMapping& operator=(EventMapping&& other) noexcept;
  EventMapping(const EventMapping&) = delete;
  EventMapping& operator=(const EventMapping&) = delete;
  ~EventMapping();

  // Maps the fd's user page and `data_pages` pages of ring buffer (0 for a counting event, else a
  // power of two). With a ring the mapping is writable: the reader moves data_tail. Returns 0 or errno.
  int map(int fd, std::size_t data_pages) noexcept;
  bool mapped() const noexcept { return base_ != nullptr; }

  // Reads the counter in user mode under the kernel's seqlock (the recipe of perf_event_mmap_page in
  // include/uapi/linux/perf_event.h). Returns false when the page says it cannot be read from user
  // mode now (index 0: not on a counter, or user access disabled). The times are extrapolated to now
  // only for a multiplexed event; otherwise they are the ones the kernel last wrote (when the event
  // was last scheduled in), which leaves scaling exact.
  bool read_counter(UserRead& out) const noexcept;

  // A reader of the ring buffer (mapped with data pages). Allocates its wrap buffer.
  RingReader ring() const;
  std::size_t ring_bytes() const noexcept { return length_ - page_size_; }

 private:
  perf_event_mmap_page* page() const noexcept { return static_cast<perf_event_mmap_page*>(base_); }
  void* base_ = nullptr;
  std::size_t length_ = 0;
  std::size_t page_size_ = 0;
};

}  // namespace perfmon::kernel
