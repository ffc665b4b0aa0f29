// SPDX-License-Identifier: Apache-2.0
// perfmon's headers and libpfm4's share /usr/include/perfmon/: one program includes and uses both.
//
// perfmon's first: libpfm4's perfmon/perf_event.h declares the kernel's perf_event structs itself
// unless <linux/perf_event.h> (which perfmon's headers include) came before it, and the two
// declarations clash in that order (docs/api.md).
// clang-format off
#include <perfmon/perfmon.hpp>
#include <perfmon/pfmlib_perf_event.h>
// clang-format on

#include <cstdio>

int main() {
  if (pfm_initialize() != PFM_SUCCESS) return 1;
  perfmon::EventCatalog catalog;
  perfmon::Event event = catalog.resolve("task-clock");
  std::printf("libpfm4 %d.%d and perfmon side by side: task-clock is type %u\n", PFM_MAJ_VERSION(pfm_get_version()),
              PFM_MIN_VERSION(pfm_get_version()), event.attr.type);
  pfm_terminate();
  return event.attr.type == PERF_TYPE_SOFTWARE ? 0 : 1;
}
