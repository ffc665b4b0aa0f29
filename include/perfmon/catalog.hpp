// perfmon: the events this machine knows, and the resolution of event strings into attrs.
#pragma once

#include <linux/perf_event.h>

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
  std::string cpu_model;  // libpfm4 model for vendor event names (skl, icl, ...); empty: the host's
};

// One row of `perfmon list`.
struct CatalogEntry {
  std::string name;    // what to write after -e
  std::string source;  // "hardware", "software", "hw-cache", "pmu", "tracepoint", "raw", "breakpoint"
  std::string description;
  bool has_attr = false;  // false for syntax-only rows (raw, breakpoint)
  perf_event_attr attr{};
};

// A PMU as sysfs describes it, for `perfmon info` and `perfmon list`.
struct PmuSummary {
  std::string name;
  std::uint32_t type = 0;
  std::vector<std::string> formats;  // "event=config:0-7"
  std::size_t event_count = 0;
  std::string cpus;               // "0-3", or "" for every CPU
  std::vector<std::string> caps;  // sysfs caps/: "num_counters=6", "pmu_name=skylake", ...
};

class EventCatalog {
 public:
  // The running system's PMUs and tracepoints.
  EventCatalog();
  explicit EventCatalog(CatalogPaths paths);
  ~EventCatalog();
  EventCatalog(EventCatalog&&) noexcept;
  EventCatalog& operator=(EventCatalog&&) noexcept;

  // Parses an event list in perf's syntax ("cycles:u,{instructions,branches},msr/tsc/") into groups.
  // Throws perfmon::Error with the cause, and the nearest known names for an unknown one.
  std::vector<EventGroup> parse(std::string_view list) const;
  // Resolves one event (no braces, no commas outside pmu/.../).
  Event resolve(std::string_view event) const;

  std::vector<CatalogEntry> entries() const;
  std::vector<PmuSummary> pmus() const;
  const std::string& tracefs_root() const;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace perfmon
