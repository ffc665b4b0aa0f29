// SPDX-License-Identifier: Apache-2.0
// Facts about this machine that explanations and `perfmon info` rest on, each read once per process.
#pragma once

#include <string>

namespace perfmon::diagnose {

// A field of /proc/cpuinfo's first processor ("model name", "CPU part"), or "". The file is read
// once: the kernel formats every CPU's entry, which is slow on large machines.
std::string cpuinfo_field(const std::string& key);
// Does the CPU say it runs under a hypervisor? x86: CPUID.1:ECX[31]; elsewhere no such bit.
bool running_under_hypervisor() noexcept;
// Is a core PMU (the one behind cycles, instructions and raw codes) registered?
bool core_pmu_exposed() noexcept;

}  // namespace perfmon::diagnose
