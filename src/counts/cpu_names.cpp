// SPDX-License-Identifier: Apache-2.0
// A CPU's id in the names other tools' tables key it by (libpfm4's models).
#include "counts/cpu_names.hpp"

#include <cstdio>
#include <cstdlib>
#include <map>
#include <string_view>

#include "perfmon/likwid_group.hpp"

namespace perfmon::counts {

// likwid's architecture to libpfm4's model of the same CPUs, for Intel's EVENT_UMASK names.
std::string libpfm_model(std::string_view arch) {
  static const std::map<std::string_view, std::string_view> kModels = {{"atom", "atom"},
                                                                       {"broadwell", "bdw"},
                                                                       {"broadwellD", "bdw_ep"},
                                                                       {"broadwellEP", "bdw_ep"},
                                                                       {"core2", "core"},
                                                                       {"goldmont", "glm"},
                                                                       {"haswell", "hsw"},
                                                                       {"haswellEP", "hsw_ep"},
                                                                       {"ivybridge", "ivb"},
                                                                       {"ivybridgeEP", "ivb_ep"},
                                                                       {"knl", "knl"},
                                                                       {"nehalem", "nhm"},
                                                                       {"nehalemEX", "nhm_ex"},
                                                                       {"sandybridge", "snb"},
                                                                       {"sandybridgeEP", "snb_ep"},
                                                                       {"silvermont", "slm"},
                                                                       {"skylake", "skl"},
                                                                       {"skylakeX", "skx"},
                                                                       {"CLX", "clx"},
                                                                       {"ICL", "icl"},
                                                                       {"ICX", "icx"},
                                                                       {"RKL", "icl"},
                                                                       {"TGL", "icl"},
                                                                       {"westmere", "wsm"},
                                                                       {"westmereEX", "wsm_dp"},
                                                                       {"zen", "amd64_fam17h_zen1"},
                                                                       {"zen2", "amd64_fam17h_zen2"},
                                                                       {"zen3", "amd64_fam19h_zen3"},
                                                                       {"interlagos", "amd64_fam15h_interlagos"},
                                                                       {"k10", "amd64_fam10h_barcelona"}};
  const auto found = kModels.find(arch);
  return found == kModels.end() ? "" : std::string(found->second);
}

std::string libpfm_model_of(const std::string& cpuid) {
  if (cpuid.starts_with("0x")) {  // arm64: the MIDR's implementer and part
    const unsigned long long midr = std::strtoull(cpuid.c_str(), nullptr, 16);
    const unsigned implementer = (midr >> 24) & 0xff, part = (midr >> 4) & 0xfff;
    if (implementer == 0x41) {
      switch (part) {
        case 0xd07:
          return "arm_ac57";
        case 0xd03:
          return "arm_ac53";
        case 0xc0f:
          return "arm_ac15";
        case 0xc09:
          return "arm_ac9";
        case 0xc08:
          return "arm_ac8";
        case 0xc07:
          return "arm_ac7";
        case 0xd0c:
          return "arm_n1";
        case 0xd49:
          return "arm_n2";
        case 0xd40:
          return "arm_v1";
        default:
          return "";
      }
    }
    if ((implementer == 0x43 && part == 0x0af) || (implementer == 0x42 && part == 0x516)) return "arm_thunderx2";
    if (implementer == 0x46 && part == 0x001) return "arm_a64fx";
    return "";
  }
  std::string model = libpfm_model(likwid_arch(cpuid));
  // Zen 4 (family 19h models 10h-1Fh, 60h-7Fh, A0h-AFh) has a table of its own in libpfm4, unlike in likwid.
  unsigned family = 0, number = 0;
  if (model == "amd64_fam19h_zen3" && std::sscanf(cpuid.c_str(), "AuthenticAMD-%u-%x", &family, &number) == 2 &&
      ((number >= 0x10 && number <= 0x1f) || (number >= 0x60 && number <= 0x7f) || (number >= 0xa0 && number <= 0xaf)))
    model = "amd64_fam19h_zen4";
  return model;
}

}  // namespace perfmon::counts
