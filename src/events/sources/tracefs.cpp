// SPDX-License-Identifier: Apache-2.0
#include "events/sources/tracefs.hpp"

#include <sys/mount.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <filesystem>
#include <fstream>

namespace perfmon::events {

namespace fs = std::filesystem;

TracefsLocation find_tracefs() {
  TracefsLocation location;
  for (const char* root : {"/sys/kernel/tracing", "/sys/kernel/debug/tracing"}) {
    struct stat events {};
    if (::stat((std::string(root) + "/events").c_str(), &events) == 0 && S_ISDIR(events.st_mode)) {
      location.root = root;
      return location;
    }
    if (errno == EACCES && location.problem.empty()) {
      struct stat mount {};
      char mode[8] = "?";
      if (::stat(root, &mount) == 0) std::snprintf(mode, sizeof mode, "%04o", mount.st_mode & 07777U);
      location.problem = std::string("tracefs is mounted at ") + root + " but this user may not read it (mode " + mode +
                         "); run as root, or give this user access to it (for example 'chmod 0755 " + root +
                         "' as root).";
      location.forbidden = true;
    }
  }
  if (!location.problem.empty()) return location;
  // Not mounted: try as perf does; this fails harmlessly without privilege.
  if (::mount("nodev", "/sys/kernel/tracing", "tracefs", 0, nullptr) == 0 &&
      fs::is_directory("/sys/kernel/tracing/events")) {
    location.root = "/sys/kernel/tracing";
    return location;
  }
  location.problem =
      "tracefs is not mounted, and this process may not mount it; run 'mount -t tracefs nodev /sys/kernel/tracing' as "
      "root.";
  return location;
}

std::optional<std::uint64_t> tracepoint_id(const std::string& tracefs_root, const std::string& subsystem,
                                           const std::string& name) {
  if (tracefs_root.empty() || subsystem.find('/') != std::string::npos || name.find('/') != std::string::npos ||
      subsystem.starts_with('.') || name.starts_with('.'))
    return std::nullopt;
  std::ifstream in(fs::path(tracefs_root) / "events" / subsystem / name / "id");
  std::uint64_t id = 0;
  if (!(in >> id)) return std::nullopt;
  return id;
}

std::vector<Tracepoint> list_tracepoints(const std::string& tracefs_root) {
  std::vector<Tracepoint> result;
  if (tracefs_root.empty()) return result;
  std::error_code ec;
  for (const fs::directory_entry& subsystem : fs::directory_iterator(fs::path(tracefs_root) / "events", ec)) {
    if (!subsystem.is_directory(ec)) continue;
    for (const fs::directory_entry& event : fs::directory_iterator(subsystem.path(), ec)) {
      if (!fs::exists(event.path() / "id", ec)) continue;
      result.push_back({subsystem.path().filename().string(), event.path().filename().string()});
    }
  }
  std::sort(result.begin(), result.end(), [](const Tracepoint& a, const Tracepoint& b) {
    return a.subsystem != b.subsystem ? a.subsystem < b.subsystem : a.name < b.name;
  });
  return result;
}

}  // namespace perfmon::events
