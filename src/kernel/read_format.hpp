// The layout of read(2) on a perf event fd with PERF_FORMAT_GROUP (also the layout of the values
// in PERF_RECORD_READ and PERF_SAMPLE_READ):
//   u64 nr; [u64 time_enabled;] [u64 time_running;] { u64 value; [u64 id;] [u64 lost;] } [nr]
#pragma once

#include <cstddef>
#include <cstdint>

#include <linux/perf_event.h>

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

// The helpers are inline: the read path decodes one group per read(2).
inline std::size_t words_per_member(std::uint64_t read_format) noexcept {
  return 1 + ((read_format & PERF_FORMAT_ID) ? 1 : 0) + ((read_format & PERF_FORMAT_LOST) ? 1 : 0);
}
inline std::size_t header_words(std::uint64_t read_format) noexcept {
  return 1 + ((read_format & PERF_FORMAT_TOTAL_TIME_ENABLED) ? 1 : 0) +
         ((read_format & PERF_FORMAT_TOTAL_TIME_RUNNING) ? 1 : 0);
}

// Number of u64 words a group read of `members` events returns for this read_format.
inline std::size_t group_read_words(std::uint64_t read_format, std::size_t members) noexcept {
  return header_words(read_format) + members * words_per_member(read_format);
}

// Decodes a group read. Writes at most `capacity` members to `out`. Returns the number of members
// in the buffer, or -1 when the words do not hold a complete group of this format.
inline long parse_group_read(const std::uint64_t* words, std::size_t word_count, std::uint64_t read_format,
                             GroupReadHeader& header, MemberValue* out, std::size_t capacity) noexcept {
  if (word_count < header_words(read_format)) return -1;
  std::size_t at = 0;
  header.members = words[at++];
  header.time_enabled = (read_format & PERF_FORMAT_TOTAL_TIME_ENABLED) ? words[at++] : 0;
  header.time_running = (read_format & PERF_FORMAT_TOTAL_TIME_RUNNING) ? words[at++] : 0;
  if (word_count < group_read_words(read_format, header.members)) return -1;
  for (std::uint64_t i = 0; i < header.members; ++i) {
    MemberValue member;
    member.value = words[at++];
    if (read_format & PERF_FORMAT_ID) member.id = words[at++];
    if (read_format & PERF_FORMAT_LOST) member.lost = words[at++];
    if (i < capacity) out[i] = member;
  }
  return static_cast<long>(header.members);
}

}  // namespace perfmon::kernel
