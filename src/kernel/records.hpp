// SPDX-License-Identifier: Apache-2.0
// The records the kernel writes into a ring buffer and perf.data keeps, laid out as
// include/uapi/linux/perf_event.h defines them: a perf_event_header, the record's fixed fields,
// then its variable part (named in each comment), then, with attr.sample_id_all, the sample_id
// trailer that sample_layout.hpp decodes. PERF_RECORD_SAMPLE has no fixed part: its fields follow
// from the attr's sample_type (sample_layout.hpp).
#pragma once

#include <linux/perf_event.h>

#include <string.h>

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace perfmon::kernel {

// PERF_RECORD_MMAP
struct MmapRecord {
  perf_event_header header;
  std::uint32_t pid, tid;
  std::uint64_t addr, len, pgoff;
  // char filename[]: NUL-terminated, padded to 8 bytes
};

// PERF_RECORD_MMAP2
struct Mmap2Record {
  perf_event_header header;
  std::uint32_t pid, tid;
  std::uint64_t addr, len, pgoff;
  union {
    struct {
      std::uint32_t maj, min;
      std::uint64_t ino, ino_generation;
    } device;
    struct {  // when header.misc has PERF_RECORD_MISC_MMAP_BUILD_ID
      std::uint8_t size, reserved[3];
      std::uint8_t id[20];
    } build_id;
  } file;
  std::uint32_t prot, flags;
  // char filename[]: NUL-terminated, padded to 8 bytes
};

// PERF_RECORD_COMM
struct CommRecord {
  perf_event_header header;
  std::uint32_t pid, tid;
  // char comm[]: NUL-terminated, padded to 8 bytes
};

// PERF_RECORD_CGROUP: a cgroup's id (PERF_SAMPLE_CGROUP's) and its path below the mount.
struct CgroupRecord {
  perf_event_header header;
  std::uint64_t id;
  // char path[]: NUL-terminated, padded to 8 bytes
};

// PERF_RECORD_FORK and PERF_RECORD_EXIT
struct TaskRecord {
  perf_event_header header;
  std::uint32_t pid, ppid, tid, ptid;
  std::uint64_t time;
};

// PERF_RECORD_LOST: the kernel could not write `lost` records of event `id` (the ring was full).
struct LostRecord {
  perf_event_header header;
  std::uint64_t id, lost;
};

// PERF_RECORD_LOST_SAMPLES: samples dropped before they reached the ring (PMU or filter).
struct LostSamplesRecord {
  perf_event_header header;
  std::uint64_t lost;
};

// PERF_RECORD_THROTTLE and PERF_RECORD_UNTHROTTLE: sampling stopped or resumed because of the rate limit.
struct ThrottleRecord {
  perf_event_header header;
  std::uint64_t time, id, stream_id;
};

// PERF_RECORD_READ (inherit_stat: a child's counts at its exit)
struct ReadRecord {
  perf_event_header header;
  std::uint32_t pid, tid;
  // the read_format words (read_format.hpp)
};

// PERF_RECORD_SWITCH has no fields (header.misc has PERF_RECORD_MISC_SWITCH_OUT or not);
// PERF_RECORD_SWITCH_CPU_WIDE names the other task.
struct SwitchCpuWideRecord {
  perf_event_header header;
  std::uint32_t next_prev_pid, next_prev_tid;
};

static_assert(sizeof(MmapRecord) == 40);
static_assert(sizeof(Mmap2Record) == 72);
static_assert(sizeof(CommRecord) == 16);
static_assert(sizeof(TaskRecord) == 32);
static_assert(sizeof(CgroupRecord) == 16);
static_assert(sizeof(LostRecord) == 24);
static_assert(sizeof(LostSamplesRecord) == 16);
static_assert(sizeof(ThrottleRecord) == 32);
static_assert(sizeof(ReadRecord) == 16);
static_assert(sizeof(SwitchCpuWideRecord) == 16);

// The record as its type, or nullptr when it is shorter than that type's fixed part.
template <typename Record>
const Record* record_as(const perf_event_header* header) noexcept {
  return header->size >= sizeof(Record) ? reinterpret_cast<const Record*>(header) : nullptr;
}

// The text that follows a record's fixed fields (MMAP's and MMAP2's file name, COMM's command name):
// up to its NUL, and never past the record's size, so that a corrupt record without one is cut short
// rather than read beyond.
template <typename Record>
std::string_view record_text(const Record* record) noexcept {
  const auto* text = reinterpret_cast<const char*>(record + 1);
  const std::size_t room = record->header.size > sizeof(Record) ? record->header.size - sizeof(Record) : 0;
  return std::string_view(text, ::strnlen(text, room));
}

}  // namespace perfmon::kernel
