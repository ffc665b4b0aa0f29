// SPDX-License-Identifier: Apache-2.0
// The kernel's CPU list format ("0-3,5,7-8"), as in /sys/devices/system/cpu/{online,possible}
// and PMU cpumasks.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace perfmon::kernel {

enum class CpuListError {
  None,
  Malformed,  // not numbers, commas and dashes
  Backwards,  // a range such as 5-3
  TooLarge,   // a CPU number at or above the limit
};

// The kernel's CPU numbers are below its NR_CPUS, which Kconfig bounds at 8192.
inline constexpr int kMaxKernelCpus = 8192;

// Parses a CPU list into sorted, distinct CPU numbers, each below `limit` (checked before any
// range is expanded, so that no text can make the list larger than the limit).
CpuListError parse_cpu_list(std::string_view text, int limit, std::vector<int>& cpus);
// Formats CPUs back into the compact kernel form.
std::string format_cpu_list(const std::vector<int>& cpus);
// /sys/devices/system/cpu/online.
std::vector<int> online_cpus();
// How many CPUs this kernel can ever have: one more than the last of /sys/devices/system/cpu/possible.
int possible_cpu_count();

}  // namespace perfmon::kernel
