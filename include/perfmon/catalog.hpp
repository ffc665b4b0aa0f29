// SPDX-License-Identifier: Apache-2.0
// perfmon: the events this machine knows, and the resolution of event strings into attrs.
#pragma once

#include <linux/perf_event.h>

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "perfmon/event.hpp"

namespace perfmon {

// Where the catalogue reads the kernel's descriptions from (tests point these at fixtures).
struct CatalogPaths {
  std::string sysfs_devices = "/sys/bus/event_source/devices";
  std::string tracefs;  // empty: find (and if need be mount) tracefs
  // A CPU model whose names to resolve instead of the host's: libpfm4's (skl, icl, ...) or
  // "coreduo" (the pmc.core table). Its events can be encoded; only the host's can be counted.
  std::string cpu_model;
};

// One row of a listing.
struct CatalogEntry {
  std::string name;  // what to write in an event list
  std::string
      source;  // "hardware", "software", "hw-cache", "pmu", "vendor", "pmc.core", "tracepoint", "raw", "breakpoint"
  std::string pmu;  // the PMU that counts it, or the CPU model whose table it comes from
  std::string description;
  bool has_attr = false;  // false for syntax-only rows (raw, breakpoint) and another CPU's events
  perf_event_attr attr{};
};

// A PMU as sysfs describes it.
struct PmuSummary {
  std::string name;
  std::uint32_t type = 0;
  bool core = false;                 // it counts the CPU's own events (cycles, instructions, raw codes)
  std::vector<std::string> formats;  // "event=config:0-7"
  std::size_t event_count = 0;
  std::string cpus;               // "0-3", or "" for every CPU
  std::vector<std::string> caps;  // sysfs caps/: "num_counters=6", "pmu_name=skylake", ...
};

class EventCatalog {
 public:
  // The running system's PMUs and tracepoints.
  EventCatalog();
  // Throws perfmon::Error when paths.cpu_model names no model libpfm4 or perfmon knows.
  explicit EventCatalog(CatalogPaths paths);
  ~EventCatalog();
  EventCatalog(EventCatalog&&) noexcept;
  EventCatalog& operator=(EventCatalog&&) noexcept;

  // Parses an event list in perf's syntax ("cycles:u,{instructions,branches},msr/tsc/") into groups.
  // Throws perfmon::Error with the cause, and the nearest known names for an unknown one.
  std::vector<EventGroup> parse(std::string_view list) const;
  // Resolves one event (no braces, no commas outside pmu/.../).
  Event resolve(std::string_view event) const;

  // Every event this machine's sources know, by source.
  std::vector<CatalogEntry> entries() const;
  // The events of the CPU model named in CatalogPaths::cpu_model (none when it is empty).
  std::vector<CatalogEntry> model_entries() const;
  std::vector<PmuSummary> pmus() const;
  // Where tracefs is ("" when it cannot be used), and when it cannot, why and what to do.
  const std::string& tracefs_root() const;
  const std::string& tracefs_problem() const;
  // The forced CPU model ("" for the host's).
  const std::string& cpu_model() const;

  struct State;  // defined in the library only

 private:
  std::unique_ptr<State> state_;
};

}  // namespace perfmon
