// SPDX-License-Identifier: Apache-2.0
// What read(2) returns for a group, laid out by a read_format the input chooses (its first 8
// bytes); the rest are the words read. Every member's fields are read.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>

#include "kernel/read_format.hpp"

namespace {
volatile std::uint64_t sink;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::uint64_t read_format = 0;
  if (size < sizeof read_format) return -1;
  std::memcpy(&read_format, data, sizeof read_format);
  const std::size_t count = (size - sizeof read_format) / 8;
  auto words = std::make_unique<std::uint64_t[]>(count);
  std::memcpy(words.get(), data + sizeof read_format, count * 8);

  const perfmon::kernel::GroupReadLayout layout(read_format | PERF_FORMAT_GROUP);
  const long members = layout.members(words.get(), count);
  if (members < 0) return 0;
  std::uint64_t sum = layout.time_enabled(words.get()) + layout.time_running(words.get());
  for (long k = 0; k < members; ++k) {
    const auto member = static_cast<std::size_t>(k);
    sum += layout.value(words.get(), member) + layout.id(words.get(), member) + layout.lost(words.get(), member);
  }
  sink = sum;
  return 0;
}
