// perf's generic event names: hardware, software and hardware-cache events, with perf's aliases.
#pragma once

#include <linux/perf_event.h>

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace perfmon::events {

struct GenericEvent {
  std::string_view name;
  std::string_view alias;  // empty when there is none
  std::uint32_t type;      // PERF_TYPE_HARDWARE or PERF_TYPE_SOFTWARE
  std::uint64_t config;
  std::string_view description;
};

std::span<const GenericEvent> hardware_events();
std::span<const GenericEvent> software_events();

struct GenericMatch {
  std::uint32_t type;
  std::uint64_t config;
};

// "cycles", "cs", "L1-dcache-load-misses", "LLC-prefetches", ... (case-insensitive as in perf).
std::optional<GenericMatch> find_generic_event(std::string_view name);

// Every hardware-cache name perf lists: "<cache>-<op>s" and "<cache>-<op>-misses" for valid pairs.
std::vector<std::string> hardware_cache_event_names();

}  // namespace perfmon::events
