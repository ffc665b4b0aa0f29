// SPDX-License-Identifier: Apache-2.0
// Event lists in every syntax (perf, cpc, pctr, pmc.core, libpfm4 strings), parsed and resolved
// by the catalogue, and their encodings. The first byte picks the CPU model; the rest is the list.
// Anything but perfmon::Error escaping, or any sanitizer report, is a finding.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "fixture.hpp"
#include "perfmon/encoding.hpp"
#include "perfmon/error.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return -1;  // not added to the corpus
  const perfmon::EventCatalog& catalog = perfmon::fuzz::catalog(data[0]);
  std::string_view list(reinterpret_cast<const char*>(data + 1), size - 1);
  try {
    if (data[0] & 0x80)
      perfmon::encode_events(catalog, list);
    else
      catalog.parse(list);
  } catch (const perfmon::Error&) {
  }
  return 0;
}
