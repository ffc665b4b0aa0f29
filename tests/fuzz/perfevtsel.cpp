// SPDX-License-Identifier: Apache-2.0
// PERFEVTSEL values as `perfmon decode` takes them (text, perf's number syntax), decoded and named
// in a CPU model's tables. The first byte picks the model; the rest is the value.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "fixture.hpp"
#include "perfmon/encoding.hpp"
#include "perfmon/error.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return -1;
  std::string_view value(reinterpret_cast<const char*>(data + 1), size - 1);
  try {
    perfmon::SelectDecoding decoding = perfmon::decode_perfevtsel(perfmon::fuzz::catalog(data[0]), value);
    (void)decoding.select.describe();
  } catch (const perfmon::Error&) {
  }
  return 0;
}
