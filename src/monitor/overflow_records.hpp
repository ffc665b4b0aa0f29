// SPDX-License-Identifier: Apache-2.0
// The kernel's record of each overflow of an event matrix's events (IP, pid and tid, time, CPU),
// kept in a ring per location: what CounterSession::take_overflow() and the event sets' overflow
// hook hand out, so that a handler that runs late (in another thread) still knows where and when
// each overflow happened.
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "kernel/mmap.hpp"
#include "kernel/sample_layout.hpp"
#include "monitor/event_matrix.hpp"
#include "perfmon/event.hpp"
#include "perfmon/sample.hpp"

namespace perfmon::monitor {

class OverflowRecords {
 public:
  // What the events are opened with so that they leave records: the fields, a wakeup per record.
  static void request(OpenSettings& settings) noexcept;
  // The records' times are on CLOCK_MONOTONIC, the clock programs read; one clock per ring, so
  // every event of the matrix takes it.
  static void use_monotonic_clock(Event& event) noexcept;

  OverflowRecords() = default;
  // Maps the rings of `matrix` (opened with request()'s settings), 8 pages each: about 680 records.
  // Throws perfmon::Error when the mapping fails (perf_event_mlock_kb).
  OverflowRecords(EventMatrix& matrix, const OpenSettings& settings);

  // Takes the oldest overflow record waiting in the ring of `location`: the event (an index of the
  // matrix) and the sample. Other records (PERF_RECORD_LOST) go by. Async-signal-safe.
  bool take(std::size_t location, std::size_t& event, Sample& sample) noexcept;

 private:
  std::vector<kernel::RingReader> readers_;
  std::vector<std::size_t> reader_of_location_;                     // kNoReader where no event opened
  std::vector<kernel::SampleLayout> layouts_;                       // by event
  std::vector<std::pair<std::uint64_t, std::size_t>> event_of_id_;  // sorted by the kernel's id
};

}  // namespace perfmon::monitor
