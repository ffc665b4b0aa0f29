#include "events/sources/tracefs.hpp"

#include <sys/mount.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

namespace perfmon::events {

namespace fs = std::filesystem;

namespace {
bool has_events(const fs::path& root) {
  std::error_code ec;
  return fs::is_directory(root / "events", ec);
}
}  // namespace

std::string find_tracefs() {
  for (const char* root : {"/sys/kernel/tracing", "/sys/kernel/debug/tracing"})
    if (has_events(root)) return root;
  // Not mounted: try as perf does; this fails harmlessly without privilege.
  if (::mount("nodev", "/sys/kernel/tracing", "tracefs", 0, nullptr) == 0 && has_events("/sys/kernel/tracing"))
    return "/sys/kernel/tracing";
  return "";
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
