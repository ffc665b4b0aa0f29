// SPDX-License-Identifier: Apache-2.0
#include "diagnose/privileges.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <fstream>

#include "kernel/text_file.hpp"

namespace perfmon::diagnose {

int perf_event_paranoid() noexcept {
  std::string text = kernel::read_first_line("/proc/sys/kernel/perf_event_paranoid");
  char* end = nullptr;
  long level = std::strtol(text.c_str(), &end, 10);
  return text.empty() || end == text.c_str() ? kParanoidUnknown : static_cast<int>(level);
}

std::string paranoid_meaning(int level) {
  if (level == kParanoidUnknown) return "perf events are not available (no /proc/sys/kernel/perf_event_paranoid)";
  if (level <= -1) return "every user may use all events, CPU-wide and kernel included";
  if (level == 0) return "users may monitor CPU-wide and the kernel, but not read raw tracepoint data";
  if (level == 1) return "users may monitor their own processes, kernel included, but not whole CPUs";
  if (level == 2) return "users may monitor only the user-space part of their own processes";
  return "users may not use perf events at all (a distribution patch level)";
}

bool has_capability(Capability capability) noexcept {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("CapEff:", 0) != 0) continue;
    std::uint64_t mask = std::strtoull(line.c_str() + 7, nullptr, 16);
    return (mask >> static_cast<int>(capability)) & 1U;
  }
  return false;
}

bool is_perf_privileged() noexcept {
  return geteuid() == 0 || has_capability(Capability::Perfmon) || has_capability(Capability::SysAdmin);
}

std::optional<uid_t> process_owner(pid_t pid) noexcept {
  struct stat status {};
  if (pid <= 0 || ::stat(("/proc/" + std::to_string(pid)).c_str(), &status) != 0) return std::nullopt;
  return status.st_uid;
}

Privilege current_privilege() noexcept {
  return {perf_event_paranoid(), is_perf_privileged()};
}

}  // namespace perfmon::diagnose
