// SPDX-License-Identifier: Apache-2.0
// Tracepoints as tracefs describes them: events/<subsystem>/<name>/id.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace perfmon::events {

struct TracefsLocation {
  std::string root;        // where tracefs is; "" when it cannot be used
  std::string problem;     // when it cannot: why, and what to do (a sentence)
  bool forbidden = false;  // the problem is this user's permission, not the mount
};

// The tracefs mount to use: /sys/kernel/tracing, else /sys/kernel/debug/tracing. When neither is
// mounted and this process may mount, tracefs is mounted at /sys/kernel/tracing (as perf does). A
// tracefs that is mounted but that this user may not read is reported as such, not as missing.
TracefsLocation find_tracefs();

struct Tracepoint {
  std::string subsystem;
  std::string name;
};

// The id of subsystem:name under tracefs_root, or nullopt when it does not exist.
std::optional<std::uint64_t> tracepoint_id(const std::string& tracefs_root, const std::string& subsystem,
                                           const std::string& name);

// Every tracepoint under tracefs_root, sorted.
std::vector<Tracepoint> list_tracepoints(const std::string& tracefs_root);

}  // namespace perfmon::events
