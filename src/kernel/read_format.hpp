// The layout of read(2) on a perf event fd with PERF_FORMAT_GROUP (also the layout of the values
// in PERF_RECORD_READ and PERF_SAMPLE_READ):
//   u64 nr; [u64 time_enabled;] [u64 time_running;] { u64 value; [u64 id;] [u64 lost;] } [nr]
#pragma once

#include <cstddef>
#include <cstdint>

namespace perfmon::kernel {

struct GroupReadHeader {
  std::uint64_t members = 0;
  std::uint64_t time_enabled = 0;
  std::uint64_t time_running = 0;
};

struct MemberValue {
  std::uint64_t value = 0;
  std::uint64_t id = 0;
  std::uint64_t lost = 0;
};

// Number of u64 words a group read of `members` events returns for this read_format.
std::size_t group_read_words(std::uint64_t read_format, std::size_t members) noexcept;

// Decodes a group read. Writes at most `capacity` members to `out`. Returns the number of members
// in the buffer, or -1 when the words do not hold a complete group of this format.
long parse_group_read(const std::uint64_t* words, std::size_t word_count, std::uint64_t read_format,
                      GroupReadHeader& header, MemberValue* out, std::size_t capacity) noexcept;

}  // namespace perfmon::kernel
