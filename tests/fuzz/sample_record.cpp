// SPDX-License-Identifier: Apache-2.0
// Records as a ring or a perf.data file holds them, decoded by the SampleLayout of an attr the
// input chooses: a PERF_RECORD_SAMPLE field by field, the sample_id trailer of any other record,
// the identifier a reader looks for first, and the text of MMAP, MMAP2 and COMM records. Every span decoded is read
// through, so that the sanitizers see any byte taken from outside the record.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <span>

#include "kernel/records.hpp"
#include "kernel/sample_layout.hpp"

namespace {

struct AttrBytes {
  std::uint64_t sample_type, read_format, branch_sample_type, sample_regs_user, sample_regs_intr;
  std::uint8_t sample_id_all;
};
constexpr std::size_t kAttrBytes = 5 * 8 + 1;

volatile std::uint64_t sink;

template <typename T>
std::uint64_t touch(std::span<const T> span) {
  std::uint64_t sum = 0;
  const auto* bytes = reinterpret_cast<const unsigned char*>(span.data());
  for (std::size_t i = 0; i < span.size_bytes(); ++i) sum += bytes[i];
  return sum;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < kAttrBytes + sizeof(perf_event_header)) return -1;
  AttrBytes chosen;
  std::memcpy(&chosen, data, 5 * 8);
  chosen.sample_id_all = data[5 * 8];
  perf_event_attr attr{};
  attr.sample_type = chosen.sample_type;
  attr.read_format = chosen.read_format;
  attr.branch_sample_type = chosen.branch_sample_type;
  attr.sample_regs_user = chosen.sample_regs_user;
  attr.sample_regs_intr = chosen.sample_regs_intr;
  attr.sample_id_all = chosen.sample_id_all & 1;
  const perfmon::kernel::SampleLayout layout(attr);

  // The record in a buffer of its own, exactly as long as the input gives, so that the sanitizer
  // sees a read one byte past it (new[] aligns it as the kernel aligns records). The header's size
  // may claim less, never more: a reader has checked that much against the ring or the file.
  const std::size_t bytes = size - kAttrBytes;
  auto record = std::make_unique<std::byte[]>(bytes);
  std::memcpy(record.get(), data + kAttrBytes, bytes);
  auto* header = reinterpret_cast<perf_event_header*>(record.get());
  if (header->size > bytes) header->size = static_cast<std::uint16_t>(bytes);

  perfmon::Sample sample;
  std::uint64_t sum = 0;
  if (layout.decode(*header, sample)) {
    sum += touch(sample.read) + touch(sample.callchain) + touch(sample.raw) + touch(sample.branches) +
           touch(sample.user_regs) + touch(sample.user_stack) + touch(sample.intr_regs) + touch(sample.aux);
  }
  perfmon::kernel::SampleId id;
  if (layout.decode_id(*header, id)) sum += id.id;
  sum += perfmon::kernel::record_identifier(*header);
  using namespace perfmon::kernel;
  if (const auto* mmap = header->type == PERF_RECORD_MMAP ? record_as<MmapRecord>(header) : nullptr)
    sum += record_text(mmap).size();
  if (const auto* mmap2 = header->type == PERF_RECORD_MMAP2 ? record_as<Mmap2Record>(header) : nullptr)
    sum += record_text(mmap2).size();
  if (const auto* comm = header->type == PERF_RECORD_COMM ? record_as<CommRecord>(header) : nullptr)
    sum += record_text(comm).size();
  sink = sum;  // keeps the reads
  return 0;
}
