// SPDX-License-Identifier: Apache-2.0
// The C ABI: the event catalogue.
#include <cmath>
#include <span>

#include "capi/handles.hpp"
#include "perfmon/metric_expression.hpp"
#include "perfmon/metric_table.hpp"
#include "perfmon/papi_presets.hpp"

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

namespace {

// This CPU's preset of that name, its expression parsed (over native events only: PAPI's table
// names no other preset); throws perfmon::Error (ENOENT) where the table has none.
perfmon::MetricExpression preset_expression(const char* preset) {
  const perfmon::MetricTable presets = perfmon::papi_presets_for(perfmon::this_cpu_id());
  const std::optional<std::size_t> found = presets.find(preset);
  if (!found)
    throw perfmon::Error(perfmon::ErrorKind::UnknownEvent,
                         std::string(preset) + " is not one of PAPI's presets for this CPU.", ENOENT);
  return perfmon::MetricExpression::parse(presets.metrics()[*found].expression);
}

}  // namespace

extern "C" {

int perfmon_papi_preset_event(const char* preset, char* event, size_t size) {
  if (preset == nullptr || event == nullptr || size == 0)
    return null_argument("a preset's name and room for its event are needed.");
  return guarded([&] {
    const perfmon::MetricExpression expression = preset_expression(preset);
    // One native event: the preset's expression is that event's name alone (NOT_DERIVED).
    if (expression.names().size() != 1 || perfmon::escaped_metric_name(expression.names().front()) != expression.text())
      return fail(EDOM,
                  (std::string(preset) + " is derived from several events here (" + expression.text() + ").").c_str());
    copy_string(event, size, expression.names().front());
    return 0;
  });
}

int perfmon_papi_preset_open(const char* preset, perfmon_papi_preset** out) {
  if (preset == nullptr || out == nullptr) return null_argument("a preset's name and room for its handle are needed.");
  *out = nullptr;
  return guarded([&] {
    auto opened = std::make_unique<perfmon_papi_preset>(preset_expression(preset));
    for (const std::string& event : opened->expression.names())
      opened->events += (opened->events.empty() ? "" : ",") + event;
    *out = opened.release();
    return 0;
  });
}

const char* perfmon_papi_preset_events(const perfmon_papi_preset* preset) {
  return preset == nullptr ? "" : preset->events.c_str();
}

size_t perfmon_papi_preset_event_count(const perfmon_papi_preset* preset) {
  return preset == nullptr ? 0 : preset->expression.names().size();
}

// No allocation: libperfmon-papi calls it at every region's end.
double perfmon_papi_preset_value(const perfmon_papi_preset* preset, const double* counts) {
  if (preset == nullptr || counts == nullptr) return std::nan("");
  return preset->expression.evaluate(std::span<const double>(counts, preset->expression.names().size()));
}

void perfmon_papi_preset_close(perfmon_papi_preset* preset) {
  std::unique_ptr<perfmon_papi_preset> owned(preset);
}

}  // extern "C"
