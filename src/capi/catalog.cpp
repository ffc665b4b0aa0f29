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

int perfmon_papi_preset_event(const char* preset, char* event, size_t size) {
  if (preset == nullptr || event == nullptr || size == 0)
    return null_argument("a preset's name and room for its event are needed.");
  return guarded([&] {
    const perfmon::MetricTable presets = perfmon::papi_presets_for(perfmon::this_cpu_id());
    const std::optional<std::size_t> found = presets.find(preset);
    if (!found) return fail(ENOENT, (std::string(preset) + " is not one of PAPI's presets for this CPU.").c_str());
    const perfmon::MetricExpression expression = perfmon::MetricExpression::parse(presets.metrics()[*found].expression);
    // One native event: the preset's expression is that event's name alone (NOT_DERIVED).
    if (expression.names().size() != 1 ||
        perfmon::escaped_metric_name(expression.names().front()) != presets.metrics()[*found].expression)
      return fail(EDOM, (std::string(preset) + " is derived from several events here (" +
                         presets.metrics()[*found].expression + ").")
                            .c_str());
    copy_string(event, size, expression.names().front());
    return 0;
  });
}

int perfmon_papi_preset_open(const char* preset, perfmon_papi_preset** out) {
  if (preset == nullptr || out == nullptr) return null_argument("a preset's name and room for its handle are needed.");
  *out = nullptr;
  return guarded([&] {
    auto opened = std::make_unique<perfmon_papi_preset>();
    opened->presets = perfmon::papi_presets_for(perfmon::this_cpu_id());
    const std::optional<std::size_t> found = opened->presets.find(preset);
    if (!found) return fail(ENOENT, (std::string(preset) + " is not one of PAPI's presets for this CPU.").c_str());
    opened->set.emplace(opened->presets, std::vector<std::size_t>{*found}, perfmon::MetricFacts{});
    for (const std::string& event : opened->set->events())
      opened->events += (opened->events.empty() ? "" : ",") + event;
    *out = opened.release();
    return 0;
  });
}

const char* perfmon_papi_preset_events(const perfmon_papi_preset* preset) {
  return preset == nullptr ? "" : preset->events.c_str();
}

size_t perfmon_papi_preset_event_count(const perfmon_papi_preset* preset) {
  return preset == nullptr ? 0 : preset->set->events().size();
}

double perfmon_papi_preset_value(const perfmon_papi_preset* preset, const double* counts) {
  if (preset == nullptr || counts == nullptr) return std::nan("");
  const std::vector<perfmon::MetricResult> results =
      preset->set->evaluate(std::span<const double>(counts, preset->set->events().size()));
  return results.front().value;
}

void perfmon_papi_preset_close(perfmon_papi_preset* preset) {
  std::unique_ptr<perfmon_papi_preset> owned(preset);
}

}  // extern "C"
