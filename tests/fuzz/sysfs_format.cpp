// SPDX-License-Identifier: Apache-2.0
// A PMU's format file ("config:0-7,32-35", "config1:0-15") and a value packed through it into an
// attr. The first 8 bytes are the value; the rest is the file's text.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>

#include "events/sources/sysfs_pmu.hpp"
#include "perfmon/error.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::uint64_t value = 0;
  if (size < sizeof value) return -1;
  std::memcpy(&value, data, sizeof value);
  std::string_view text(reinterpret_cast<const char*>(data + sizeof value), size - sizeof value);
  try {
    perfmon::events::FormatField field = perfmon::events::parse_format_field("term", text);
    (void)field.describe();
    perf_event_attr attr{};
    perfmon::events::pack_format_value(field, value, attr);
  } catch (const perfmon::Error&) {
  }
  return 0;
}
