// SPDX-License-Identifier: Apache-2.0
// A CPU's id (this_cpu_id()'s form) in the names other tools' tables key it by: libpfm4's model
// (PAPI's presets are keyed so); likwid's architecture is likwid_arch() in likwid_group.hpp.
#pragma once

#include <string>
#include <string_view>

namespace perfmon::counts {

// libpfm4's name of the CPU's core PMU ("skl", "icx", "amd64_fam19h_zen3", "arm_ac57"); "" where
// libpfm4 has none for it.
std::string libpfm_model_of(const std::string& cpuid);
// libpfm4's model of the CPUs of a likwid architecture ("skylake": "skl"); "" for none.
std::string libpfm_model(std::string_view arch);

}  // namespace perfmon::counts
