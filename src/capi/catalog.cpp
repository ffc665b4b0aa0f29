// SPDX-License-Identifier: Apache-2.0
// The C ABI: the event catalogue.
#include "capi/handles.hpp"

using namespace perfmon::capi;

extern "C" {

perfmon_catalog* perfmon_catalog_new(void) {
  perfmon_catalog* catalog = nullptr;
  guarded([&] {
    catalog = std::make_unique<perfmon_catalog>().release();
    return 0;
  });
  return catalog;
}

void perfmon_catalog_free(perfmon_catalog* catalog) {
  std::unique_ptr<perfmon_catalog> owned(catalog);
}

int perfmon_catalog_check(const perfmon_catalog* catalog, const char* events) {
  if (catalog == nullptr || events == nullptr) return null_argument("a catalogue and an event list are needed.");
  return guarded([&] {
    (void)catalog->catalog.parse(events);
    return 0;
  });
}

int perfmon_catalog_list(const perfmon_catalog* catalog, const char* source, perfmon_event_callback callback,
                         void* context) {
  if (catalog == nullptr || callback == nullptr) return null_argument("a catalogue and a callback are needed.");
  return guarded([&] {
    for (const perfmon::CatalogEntry& entry : catalog->catalog.entries())
      if (source == nullptr || entry.source == source) callback(context, entry.name.c_str(), entry.description.c_str());
    return 0;
  });
}

}  // extern "C"
