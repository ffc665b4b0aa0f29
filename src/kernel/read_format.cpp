#include "kernel/read_format.hpp"

#include <linux/perf_event.h>

namespace perfmon::kernel {

namespace {
std::size_t words_per_member(std::uint64_t read_format) noexcept {
  return 1 + ((read_format & PERF_FORMAT_ID) ? 1 : 0) + ((read_format & PERF_FORMAT_LOST) ? 1 : 0);
}
std::size_t header_words(std::uint64_t read_format) noexcept {
  return 1 + ((read_format & PERF_FORMAT_TOTAL_TIME_ENABLED) ? 1 : 0) +
         ((read_format & PERF_FORMAT_TOTAL_TIME_RUNNING) ? 1 : 0);
}
}  // namespace

std::size_t group_read_words(std::uint64_t read_format, std::size_t members) noexcept {
  return header_words(read_format) + members * words_per_member(read_format);
}

long parse_group_read(const std::uint64_t* words, std::size_t word_count, std::uint64_t read_format,
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
