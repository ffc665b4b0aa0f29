// SPDX-License-Identifier: Apache-2.0
#include "diagnose/user_access.hpp"

#include "arch/counter_read.hpp"
#include "kernel/text_file.hpp"

namespace perfmon::diagnose {

std::string user_access_unavailable_reason() {
  if (!arch::kUserCounterReads) return "this architecture has no user-mode counter reads in perfmon";
#if defined(__aarch64__)
  std::string access = kernel::read_first_line("/proc/sys/kernel/perf_user_access");
  if (access != "1")
    return "kernel.perf_user_access is " + (access.empty() ? std::string("missing (kernel older than 5.17)") : access) +
           ": user mode may not read counters; 'sysctl kernel.perf_user_access=1' allows it";
#else
  std::string rdpmc = kernel::read_first_line("/sys/bus/event_source/devices/cpu/rdpmc");
  if (rdpmc.empty()) rdpmc = kernel::read_first_line("/sys/bus/event_source/devices/cpu_core/rdpmc");
  if (rdpmc.empty()) return "no core PMU exposes an rdpmc setting (no hardware PMU here)";
  if (rdpmc == "0")
    return "/sys/bus/event_source/devices/cpu/rdpmc is 0: rdpmc is disabled; write 1 there (as root) to allow it";
#endif
  return "";
}

}  // namespace perfmon::diagnose
