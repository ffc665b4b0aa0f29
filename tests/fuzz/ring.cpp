// SPDX-License-Identifier: Apache-2.0
// The ring reader over a ring and a user page whose positions the input chooses: the first 8 bytes
// are data_tail, the next 8 data_head, the rest the ring (its largest power-of-two prefix, at least
// 64 bytes, as the kernel's ring is a power of two). Every record handed out is read through.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>

#include "kernel/mmap.hpp"

namespace {
volatile std::uint64_t sink;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  constexpr std::size_t kPositions = 16, kSmallestRing = 64, kLargestRing = 1 << 16;
  if (size < kPositions + kSmallestRing) return -1;
  perf_event_mmap_page control{};
  std::memcpy(&control.data_tail, data, 8);
  std::memcpy(&control.data_head, data + 8, 8);
  std::size_t ring_size = kSmallestRing;
  while (ring_size * 2 <= size - kPositions && ring_size * 2 <= kLargestRing) ring_size *= 2;
  auto ring = std::make_unique<std::byte[]>(ring_size);
  std::memcpy(ring.get(), data + kPositions, ring_size);

  perfmon::kernel::RingReader reader(&control, ring.get(), ring_size);
  const std::size_t available = reader.begin();
  std::size_t seen = 0;
  std::uint64_t sum = 0;
  while (const perf_event_header* record = reader.next()) {
    const auto* bytes = reinterpret_cast<const unsigned char*>(record);
    for (std::size_t i = 0; i < record->size; ++i) sum += bytes[i];
    seen += record->size;
  }
  if (!reader.corrupt() && seen != available) __builtin_trap();  // every byte offered is a record
  reader.consume();
  sink = sum;
  return 0;
}
