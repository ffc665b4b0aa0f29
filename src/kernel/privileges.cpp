#include "kernel/privileges.hpp"

#include <unistd.h>

#include <climits>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <sstream>

namespace perfmon::kernel {

namespace {
constexpr int kCapSysAdmin = 21;
constexpr int kCapPerfmon = 38;
}  // namespace

int perf_event_paranoid() noexcept {
  std::ifstream in("/proc/sys/kernel/perf_event_paranoid");
  int level = INT_MIN;
  if (!(in >> level)) return INT_MIN;
  return level;
}

std::string paranoid_meaning(int level) {
  if (level == INT_MIN) return "perf events are not available (no /proc/sys/kernel/perf_event_paranoid)";
  if (level <= -1) return "every user may use all events, CPU-wide and kernel included";
  if (level == 0) return "users may monitor CPU-wide and the kernel, but not read raw tracepoint data";
  if (level == 1) return "users may monitor their own processes, kernel included, but not whole CPUs";
  if (level == 2) return "users may monitor only the user-space part of their own processes";
  return "users may not use perf events at all (a distribution patch level)";
}

bool has_capability(int capability) noexcept {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("CapEff:", 0) != 0) continue;
    std::uint64_t mask = std::strtoull(line.c_str() + 7, nullptr, 16);
    return (mask >> capability) & 1U;
  }
  return false;
}

bool is_perf_privileged() noexcept {
  return geteuid() == 0 || has_capability(kCapPerfmon) || has_capability(kCapSysAdmin);
}

}  // namespace perfmon::kernel
