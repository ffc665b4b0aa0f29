// SPDX-License-Identifier: Apache-2.0
// ELF notes as a binary or /sys/kernel/notes holds them, searched for a GNU build id: what
// perfmon record reads from every file a recorded program maps.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "kernel/build_id.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  (void)perfmon::kernel::build_id_in_notes(std::string_view(reinterpret_cast<const char*>(data), size));
  return 0;
}
