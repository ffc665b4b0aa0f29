// SPDX-License-Identifier: Apache-2.0
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

// What the kernel is told for a generic event: attr.type and attr.config.
struct EventCode {
  std::uint32_t type;  // PERF_TYPE_HARDWARE, PERF_TYPE_SOFTWARE or PERF_TYPE_HW_CACHE
  std::uint64_t config;
};

struct GenericEvent {
  std::string_view name;
  std::string_view alias;  // empty when there is none
  EventCode code;
  std::string_view description;
};

std::span<const GenericEvent> hardware_events();
std::span<const GenericEvent> software_events();

// "cycles", "cs", "L1-dcache-load-misses", "LLC-prefetches", ... (case-insensitive as in perf).
std::optional<EventCode> find_generic_event(std::string_view name);

// For a hardware-cache name whose operation the cache does not have ("L1-icache-stores"), the
// sentence saying so; nothing for any other name.
std::optional<std::string> unsupported_cache_operation(std::string_view name);

// Every hardware-cache name perf lists: "<cache>-<op>s" and "<cache>-<op>-misses" for valid pairs.
std::vector<std::string> hardware_cache_event_names();

}  // namespace perfmon::events
