// SPDX-License-Identifier: Apache-2.0
// The catalogue's listings: every event it can resolve, a CPU model's table, and the PMUs of sysfs.
#include "events/catalog_state.hpp"
#include "events/sources/generic.hpp"
#include "events/sources/libpfm.hpp"
#include "events/sources/pmc_core.hpp"
#include "events/sources/tracefs.hpp"
#include "kernel/cpu_list.hpp"
#include "perfmon/error.hpp"

namespace perfmon {

namespace {

CatalogEntry pmc_core_entry(const events::PmcCoreEvent& event) {
  CatalogEntry entry;
  entry.name = "pmc.core/" + event.name + "/";
  entry.source = "pmc.core";
  entry.pmu = std::string(events::kPmcCoreModel);
  entry.description = "Intel Core Solo/Duo: " + events::describe_pmc_core_event(event);
  return entry;
}

}  // namespace

std::vector<CatalogEntry> EventCatalog::entries() const {
  const State& s = *state_;
  std::vector<CatalogEntry> entries;
  auto add = [&](std::string name, std::string source, std::string pmu, std::string description, bool with_attr) {
    CatalogEntry entry;
    entry.name = std::move(name);
    entry.source = std::move(source);
    entry.pmu = std::move(pmu);
    entry.description = std::move(description);
    if (with_attr) {
      entry.attr = resolve(entry.name).attr;
      entry.has_attr = true;
    }
    entries.push_back(std::move(entry));
  };
  auto with_alias = [](const events::GenericEvent& event) {
    return std::string(event.description) + (event.alias.empty() ? "" : " [alias: " + std::string(event.alias) + "]");
  };
  for (const events::GenericEvent& event : events::hardware_events())
    add(std::string(event.name), "hardware", s.core_pmu_name(), with_alias(event), true);
  for (const events::GenericEvent& event : events::software_events())
    add(std::string(event.name), "software", "software", with_alias(event), true);
  for (const std::string& name : events::hardware_cache_event_names())
    add(name, "hw-cache", s.core_pmu_name(), "hardware cache event", true);
  for (const events::Pmu& pmu : s.pmus) {
    for (const events::PmuEventAlias& alias : pmu.details().events) {
      std::string description = "PMU " + pmu.name + " (type " + std::to_string(pmu.type) + "): " + alias.terms;
      if (!alias.unit.empty()) description += ", in " + alias.unit;
      add(pmu.name + "/" + alias.name + "/", "pmu", pmu.name, description, true);
    }
  }
  for (const events::LibpfmEvent& event : events::libpfm_events(s.paths.cpu_model))
    add(event.name, "vendor", s.paths.cpu_model.empty() ? s.core_pmu_name() : s.paths.cpu_model, event.description,
        true);
  for (const events::PmcCoreEvent& event : events::pmc_core_events()) {
    CatalogEntry entry = pmc_core_entry(event);
    try {  // usable only on that CPU: elsewhere the row is documentation
      entry.attr = resolve(entry.name).attr;
      entry.has_attr = true;
    } catch (const Error&) {
    }
    entries.push_back(std::move(entry));
  }
  for (const events::Tracepoint& tp : events::list_tracepoints(tracefs_root()))
    add(tp.subsystem + ":" + tp.name, "tracepoint", "tracepoint", "tracepoint", true);
  add("rNNN", "raw", s.core_pmu_name(), "raw event code for the core PMU, in hex (see the CPU's manual)", false);
  add("mem:ADDR[/LEN][:rwx]", "breakpoint", "breakpoint",
      "hardware breakpoint: count reads, writes or executions of ADDR", false);
  return entries;
}

std::vector<CatalogEntry> EventCatalog::model_entries() const {
  const std::string& model = state_->paths.cpu_model;
  std::vector<CatalogEntry> entries;
  if (model.empty()) return entries;
  if (model == events::kPmcCoreModel) {
    for (const events::PmcCoreEvent& event : events::pmc_core_events()) entries.push_back(pmc_core_entry(event));
    return entries;
  }
  for (const events::LibpfmEvent& event : events::libpfm_events(model)) {
    CatalogEntry entry;
    entry.name = event.name;
    entry.source = "vendor";
    entry.pmu = model;
    entry.description = event.description;
    entries.push_back(std::move(entry));
  }
  return entries;
}

std::vector<PmuSummary> EventCatalog::pmus() const {
  std::vector<PmuSummary> result;
  for (const events::Pmu& pmu : state_->pmus) {
    const events::PmuDetails& details = pmu.details();
    PmuSummary summary;
    summary.name = pmu.name;
    summary.type = pmu.type;
    summary.core = events::is_core_pmu(pmu.name, pmu.type);
    for (const events::FormatField& field : details.formats) summary.formats.push_back(field.describe());
    summary.event_count = details.events.size();
    summary.cpus = kernel::format_cpu_list(pmu.cpus);
    summary.caps = details.caps;
    result.push_back(std::move(summary));
  }
  return result;
}

}  // namespace perfmon
