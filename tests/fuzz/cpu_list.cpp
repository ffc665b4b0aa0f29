// SPDX-License-Identifier: Apache-2.0
// The kernel's CPU-list format, as -C and sysfs cpumasks give it. A list that parses must print
// back to a list that parses to the same CPUs, all below the limit.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "kernel/cpu_list.hpp"

using perfmon::kernel::CpuListError;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  constexpr int kLimit = perfmon::kernel::kMaxKernelCpus;
  std::vector<int> cpus;
  if (perfmon::kernel::parse_cpu_list(text, kLimit, cpus) != CpuListError::None) return 0;
  for (std::size_t i = 0; i < cpus.size(); ++i)
    if (cpus[i] < 0 || cpus[i] >= kLimit || (i > 0 && cpus[i] <= cpus[i - 1])) std::abort();
  std::vector<int> again;
  if (perfmon::kernel::parse_cpu_list(perfmon::kernel::format_cpu_list(cpus), kLimit, again) != CpuListError::None ||
      again != cpus)
    std::abort();
  return 0;
}
