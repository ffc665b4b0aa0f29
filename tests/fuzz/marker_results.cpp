// SPDX-License-Identifier: Apache-2.0
// Marker results as a measured program may leave them (perfmon stat --markers reads what the
// program wrote): any text is read into results or refused with a sentence (perfmon::Error), never
// a crash, a hang or another exception.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "perfmon/error.hpp"
#include "perfmon/marker_results.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    const perfmon::MarkerResults results =
        perfmon::parse_marker_results(std::string_view(reinterpret_cast<const char*>(data), size));
    for (const perfmon::MarkedRegionResult& region : results.regions)
      if (region.group >= results.groups.size() && !(region.group == 0 && results.groups.empty())) __builtin_trap();
  } catch (const perfmon::Error&) {
  }
  return 0;
}
