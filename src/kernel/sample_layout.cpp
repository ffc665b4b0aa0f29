// SPDX-License-Identifier: Apache-2.0
#include "kernel/sample_layout.hpp"

#include <bit>
#include <cstring>

#include "kernel/read_format.hpp"

namespace perfmon::kernel {

namespace {

// Walks the u64 words of a record after its header, refusing to step past its end.
class Words {
 public:
  // The whole words of `bytes` bytes from `begin`: a corrupt size smaller than the header never
  // makes a word reach past the record.
  Words(const std::byte* begin, std::size_t bytes)
      : at_(reinterpret_cast<const std::uint64_t*>(begin)), end_(at_ + bytes / 8) {}
  // The fields after a record's header.
  explicit Words(const perf_event_header& record)
      : Words(reinterpret_cast<const std::byte*>(&record + 1), body_bytes(record)) {}

  static std::size_t body_bytes(const perf_event_header& record) noexcept {
    return record.size > sizeof record ? record.size - sizeof record : 0;
  }

  bool take(std::uint64_t& value) noexcept {
    if (at_ >= end_) return false;
    value = *at_++;
    return true;
  }
  bool take_pair(std::uint32_t& low, std::uint32_t& high) noexcept {
    std::uint64_t word;
    if (!take(word)) return false;
    std::uint32_t halves[2];
    std::memcpy(halves, &word, sizeof halves);  // in memory order, as the kernel writes the two u32
    low = halves[0];
    high = halves[1];
    return true;
  }
  bool take_words(std::size_t count, std::span<const std::uint64_t>& out) noexcept {
    if (count > static_cast<std::size_t>(end_ - at_)) return false;
    out = {at_, count};
    at_ += count;
    return true;
  }
  // `bytes` bytes, then padding to the next word.
  bool take_bytes(std::uint64_t bytes, std::span<const std::byte>& out) noexcept {
    // Compared in bytes first: a corrupt size near 2^64 would wrap round in bytes + 7.
    if (bytes > 8 * static_cast<std::uint64_t>(end_ - at_)) return false;
    const std::uint64_t words = (bytes + 7) / 8;
    out = {reinterpret_cast<const std::byte*>(at_), static_cast<std::size_t>(bytes)};
    at_ += words;
    return true;
  }

 private:
  const std::uint64_t* at_;
  const std::uint64_t* end_;
};

constexpr std::uint64_t kTrailerFields = PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID |
                                         PERF_SAMPLE_CPU | PERF_SAMPLE_IDENTIFIER;

}  // namespace

SampleLayout::SampleLayout(const perf_event_attr& attr) noexcept
    : sample_type_(attr.sample_type),
      read_format_(attr.read_format),
      branch_sample_type_(attr.branch_sample_type),
      user_regs_(static_cast<std::size_t>(std::popcount(attr.sample_regs_user))),
      intr_regs_(static_cast<std::size_t>(std::popcount(attr.sample_regs_intr))),
      trailer_bytes_(attr.sample_id_all ? 8 * static_cast<std::size_t>(std::popcount(attr.sample_type & kTrailerFields))
                                        : 0) {}

bool SampleLayout::decode(const perf_event_header& record, perfmon::Sample& out) const noexcept {
  if (record.type != PERF_RECORD_SAMPLE || record.size % 8 != 0) return false;  // the kernel pads to words
  Words w(record);
  const std::uint64_t type = sample_type_;
  // Every field is written once: taken where the layout has it, zeroed where it has not. (Zeroing
  // the whole Sample first, 296 bytes by `rep stos`, took longer than the decoding itself; and a
  // call per field, where the compiler would not inline these, more than the field.)
  auto word = [&](std::uint64_t bits, std::uint64_t & value) __attribute__((always_inline)) {
    if (type & bits) return w.take(value);
    value = 0;
    return true;
  };
  auto pair = [&](std::uint64_t bit, std::uint32_t & low, std::uint32_t & high) __attribute__((always_inline)) {
    if (type & bit) return w.take_pair(low, high);
    low = high = 0;
    return true;
  };
  std::uint32_t reserved = 0;
  std::uint64_t count = 0;
  out.record = &record;
  if (!word(PERF_SAMPLE_IDENTIFIER, out.identifier) || !word(PERF_SAMPLE_IP, out.ip) ||
      !pair(PERF_SAMPLE_TID, out.pid, out.tid) || !word(PERF_SAMPLE_TIME, out.time) ||
      !word(PERF_SAMPLE_ADDR, out.addr) || !word(PERF_SAMPLE_ID, out.id) ||
      !word(PERF_SAMPLE_STREAM_ID, out.stream_id) || !pair(PERF_SAMPLE_CPU, out.cpu, reserved) ||
      !word(PERF_SAMPLE_PERIOD, out.period))
    return false;
  out.read = {};
  if (type & PERF_SAMPLE_READ) {
    if (read_format_ & PERF_FORMAT_GROUP) {
      std::span<const std::uint64_t> nr;
      if (!w.take_words(1, nr) || nr[0] > 0xffff) return false;
      // Take the group's words whole, the nr word included, so that GroupReadLayout reads them.
      const std::size_t words = GroupReadLayout(read_format_).words(static_cast<std::size_t>(nr[0]));
      std::span<const std::uint64_t> rest;
      if (!w.take_words(words - 1, rest)) return false;
      out.read = {nr.data(), words};
    } else if (!w.take_words(single_read_words(read_format_), out.read)) {
      return false;
    }
  }
  out.callchain = {};
  if (type & PERF_SAMPLE_CALLCHAIN) {
    if (!w.take(count) || !w.take_words(static_cast<std::size_t>(count), out.callchain)) return false;
  }
  out.raw = {};
  if (type & PERF_SAMPLE_RAW) {
    // { u32 size; char data[size]; } padded so that the whole is u64-aligned.
    std::uint64_t first = 0;
    if (!w.take(first)) return false;
    std::uint32_t size;
    std::memcpy(&size, &first, sizeof size);
    std::span<const std::byte> rest;
    if (size < 4) return false;
    // The data starts inside the first word, after the size.
    if (!w.take_bytes(size - 4, rest)) return false;
    out.raw = {rest.data() - 4, size};
  }
  out.branch_hw_index = 0;
  out.branches = {};
  if (type & PERF_SAMPLE_BRANCH_STACK) {
    if (!w.take(count)) return false;
    if ((branch_sample_type_ & PERF_SAMPLE_BRANCH_HW_INDEX) && !w.take(out.branch_hw_index)) return false;
    static_assert(sizeof(perf_branch_entry) == 24);
    std::span<const std::uint64_t> entries;
    if (count > 0xffff || !w.take_words(static_cast<std::size_t>(count) * 3, entries)) return false;
    out.branches = {reinterpret_cast<const perf_branch_entry*>(entries.data()), static_cast<std::size_t>(count)};
  }
  out.user_regs_abi = 0;
  out.user_regs = {};
  if (type & PERF_SAMPLE_REGS_USER) {
    if (!w.take(out.user_regs_abi)) return false;
    if (out.user_regs_abi != PERF_SAMPLE_REGS_ABI_NONE && !w.take_words(user_regs_, out.user_regs)) return false;
  }
  out.user_stack = {};
  out.user_stack_dynamic_size = 0;
  if (type & PERF_SAMPLE_STACK_USER) {
    if (!w.take(count) || !w.take_bytes(count, out.user_stack)) return false;
    if (count != 0 && !w.take(out.user_stack_dynamic_size)) return false;
  }
  if (!word(PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT, out.weight) || !word(PERF_SAMPLE_DATA_SRC, out.data_src) ||
      !word(PERF_SAMPLE_TRANSACTION, out.transaction))
    return false;
  out.intr_regs_abi = 0;
  out.intr_regs = {};
  if (type & PERF_SAMPLE_REGS_INTR) {
    if (!w.take(out.intr_regs_abi)) return false;
    if (out.intr_regs_abi != PERF_SAMPLE_REGS_ABI_NONE && !w.take_words(intr_regs_, out.intr_regs)) return false;
  }
  if (!word(PERF_SAMPLE_PHYS_ADDR, out.phys_addr) || !word(PERF_SAMPLE_CGROUP, out.cgroup) ||
      !word(PERF_SAMPLE_DATA_PAGE_SIZE, out.data_page_size) || !word(PERF_SAMPLE_CODE_PAGE_SIZE, out.code_page_size))
    return false;
  out.aux = {};
  if (type & PERF_SAMPLE_AUX) {
    if (!w.take(count) || !w.take_bytes(count, out.aux)) return false;
  }
  return true;
}

bool SampleLayout::decode_id(const perf_event_header& record, SampleId& out) const noexcept {
  const std::size_t body = Words::body_bytes(record);
  if (trailer_bytes_ == 0 || record.type == PERF_RECORD_SAMPLE || record.size % 8 != 0 || body < trailer_bytes_)
    return false;
  // The trailer ends the record.
  Words w(reinterpret_cast<const std::byte*>(&record + 1) + body - trailer_bytes_, trailer_bytes_);
  const std::uint64_t type = sample_type_;
  out = SampleId{};
  if (type & PERF_SAMPLE_TID) w.take_pair(out.pid, out.tid);
  if (type & PERF_SAMPLE_TIME) w.take(out.time);
  if (type & PERF_SAMPLE_ID) w.take(out.id);
  if (type & PERF_SAMPLE_STREAM_ID) w.take(out.stream_id);
  if (type & PERF_SAMPLE_CPU) {
    std::uint32_t reserved = 0;
    w.take_pair(out.cpu, reserved);
  }
  if (type & PERF_SAMPLE_IDENTIFIER) w.take(out.id);
  return true;
}

std::uint64_t record_identifier(const perf_event_header& record) noexcept {
  if (record.size < sizeof record + 8) return 0;
  const auto* words = reinterpret_cast<const std::uint64_t*>(&record + 1);
  return record.type == PERF_RECORD_SAMPLE ? words[0] : words[(record.size - sizeof record) / 8 - 1];
}

}  // namespace perfmon::kernel
