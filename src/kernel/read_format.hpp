// SPDX-License-Identifier: Apache-2.0
// The layout of read(2) on a perf event fd (also the layout of the values in PERF_RECORD_READ and
// PERF_SAMPLE_READ):
//   with PERF_FORMAT_GROUP:    u64 nr; [u64 time_enabled;] [u64 time_running;] { u64 value; [u64 id;] [u64 lost;] }
//   [nr] without:                   u64 value; [u64 time_enabled;] [u64 time_running;] [u64 id;] [u64 lost;]
#pragma once

#include <linux/perf_event.h>

#include <bit>
#include <cstddef>
#include <cstdint>

namespace perfmon::kernel {

// Where each field of a group read sits for one read_format: worked out once, then used on every
// read without branching on the format again.
class GroupReadLayout {
 public:
  explicit GroupReadLayout(std::uint64_t read_format) noexcept
      : enabled_at_((read_format & PERF_FORMAT_TOTAL_TIME_ENABLED) ? 1 : 0),
        running_at_((read_format & PERF_FORMAT_TOTAL_TIME_RUNNING) ? 1 + enabled_at_ : 0),
        header_(1 + (enabled_at_ ? 1 : 0) + (running_at_ ? 1 : 0)),
        id_at_((read_format & PERF_FORMAT_ID) ? 1 : 0),
        lost_at_((read_format & PERF_FORMAT_LOST) ? 1 + id_at_ : 0),
        stride_(1 + (id_at_ ? 1 : 0) + (lost_at_ ? 1 : 0)) {}

  // u64 words a read of a group of `members` events returns.
  std::size_t words(std::size_t members) const noexcept { return header_ + members * stride_; }
  // The number of members, or -1 when `count` words do not hold a complete group.
  long members(const std::uint64_t* w, std::size_t count) const noexcept {
    // Compared by division: a corrupt member count near 2^64 must not wrap words() round.
    if (count < header_ || w[0] > (count - header_) / stride_) return -1;
    return static_cast<long>(w[0]);
  }
  std::uint64_t time_enabled(const std::uint64_t* w) const noexcept { return enabled_at_ ? w[enabled_at_] : 0; }
  std::uint64_t time_running(const std::uint64_t* w) const noexcept { return running_at_ ? w[running_at_] : 0; }
  std::uint64_t value(const std::uint64_t* w, std::size_t k) const noexcept { return w[header_ + k * stride_]; }
  std::uint64_t id(const std::uint64_t* w, std::size_t k) const noexcept {
    return id_at_ ? w[header_ + k * stride_ + id_at_] : 0;
  }
  std::uint64_t lost(const std::uint64_t* w, std::size_t k) const noexcept {
    return lost_at_ ? w[header_ + k * stride_ + lost_at_] : 0;
  }

 private:
  std::size_t enabled_at_, running_at_, header_;
  std::size_t id_at_, lost_at_, stride_;
};

// u64 words of one read of a single event (read_format without PERF_FORMAT_GROUP).
constexpr std::size_t single_read_words(std::uint64_t read_format) noexcept {
  return 1 + static_cast<std::size_t>(
                 std::popcount(read_format & (PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING |
                                              PERF_FORMAT_ID | PERF_FORMAT_LOST)));
}

}  // namespace perfmon::kernel
