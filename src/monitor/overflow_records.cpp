// SPDX-License-Identifier: Apache-2.0
#include "monitor/overflow_records.hpp"

#include <time.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string>

#include "kernel/perf_event.hpp"
#include "monitor/attr.hpp"
#include "perfmon/error.hpp"

namespace perfmon::monitor {

namespace {

constexpr std::uint64_t kFields = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU;
constexpr std::size_t kRingPages = 8;
constexpr std::size_t kNoReader = static_cast<std::size_t>(-1);

}  // namespace

void OverflowRecords::request(OpenSettings& settings) noexcept {
  settings.sample_type = kFields;
  settings.wakeup_events = 1;
}

void OverflowRecords::use_monotonic_clock(Event& event) noexcept {
  event.attr.use_clockid = 1;
  event.attr.clockid = CLOCK_MONOTONIC;
}

OverflowRecords::OverflowRecords(EventMatrix& matrix, const OpenSettings& settings) {
  if (int err = matrix.map_rings(kRingPages); err != 0)
    throw Error(ErrorKind::Limit,
                std::string("cannot map the rings of the overflow records: ") + std::strerror(err) +
                    (err == EPERM || err == ENOMEM ? " (kernel.perf_event_mlock_kb limits them)." : "."),
                err);
  std::vector<std::size_t> reader_of_ring;
  for (std::size_t ring = 0; ring < matrix.ring_count(); ++ring) {
    reader_of_ring.push_back(matrix.ring_fd(ring) >= 0 ? readers_.size() : kNoReader);
    if (matrix.ring_fd(ring) >= 0) readers_.push_back(matrix.ring(ring).ring());
  }
  for (std::size_t location = 0; location < matrix.locations().size(); ++location)
    reader_of_location_.push_back(reader_of_ring[matrix.ring_of(location)]);
  for (std::size_t e = 0; e < matrix.event_count(); ++e)
    layouts_.emplace_back(complete_attr(matrix.event(e).event, true, settings));
  for (const OpenGroup& group : matrix.groups())
    for (const GroupFds& at : group.at)
      for (std::size_t k = 0; k < at.fds.size(); ++k) event_of_id_.emplace_back(at.ids[k], at.events[k]);
  std::sort(event_of_id_.begin(), event_of_id_.end());
}

bool OverflowRecords::take(std::size_t location, std::size_t& event, Sample& sample) noexcept {
  if (location >= reader_of_location_.size() || reader_of_location_[location] == kNoReader) return false;
  kernel::RingReader& reader = readers_[reader_of_location_[location]];
  if (reader.corrupt()) return false;
  reader.begin();
  bool taken = false;
  while (!taken) {
    const perf_event_header* record = reader.next();
    if (record == nullptr) break;
    if (record->type != PERF_RECORD_SAMPLE) continue;
    const std::uint64_t id = kernel::record_identifier(*record);
    auto named = std::lower_bound(event_of_id_.begin(), event_of_id_.end(), std::make_pair(id, std::size_t{0}));
    if (named == event_of_id_.end() || named->first != id || !layouts_[named->second].decode(*record, sample)) continue;
    event = named->second;
    sample.record = nullptr;  // its space goes back to the kernel below
    taken = true;
  }
  reader.consume();
  return taken;
}

}  // namespace perfmon::monitor
