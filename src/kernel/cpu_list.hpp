// The kernel's CPU list format ("0-3,5,7-8"), as in /sys/devices/system/cpu/online and PMU cpumasks.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace perfmon::kernel {

// Parses a CPU list; throws perfmon::Error on malformed text.
std::vector<int> parse_cpu_list(std::string_view text);
// Formats CPUs back into the compact kernel form.
std::string format_cpu_list(const std::vector<int>& cpus);
// /sys/devices/system/cpu/online.
std::vector<int> online_cpus();

}  // namespace perfmon::kernel
