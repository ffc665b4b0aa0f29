// SPDX-License-Identifier: Apache-2.0
#include "diagnose/host.hpp"

#include <fstream>
#include <map>

#include "arch/x86/cpuid.hpp"
#include "events/sources/sysfs_pmu.hpp"

namespace perfmon::diagnose {

std::string cpuinfo_field(const std::string& key) {
  static const std::map<std::string, std::string> fields = [] {
    std::map<std::string, std::string> first;
    std::ifstream in("/proc/cpuinfo");
    for (std::string line; std::getline(in, line) && !line.empty();) {  // an empty line ends the first CPU
      std::size_t colon = line.find(':');
      if (colon == std::string::npos) continue;
      std::string name = line.substr(0, colon);
      name.erase(name.find_last_not_of(" \t") + 1);
      std::string value = line.substr(colon + 1);
      value.erase(0, value.find_first_not_of(" \t"));
      first.emplace(std::move(name), std::move(value));
    }
    return first;
  }();
  auto found = fields.find(key);
  return found == fields.end() ? "" : found->second;
}

bool running_under_hypervisor() noexcept {
  static const bool under_hypervisor = [] {
    std::optional<arch::X86Signature> signature = arch::host_x86_signature();
    return signature && signature->hypervisor;
  }();
  return under_hypervisor;
}

bool core_pmu_exposed() noexcept {
  static const bool exposed = [] {
    for (const events::Pmu& pmu : events::discover_pmus("/sys/bus/event_source/devices"))
      if (events::is_core_pmu(pmu.name, pmu.type)) return true;
    return false;
  }();  // PMUs are registered at boot; one look per process
  return exposed;
}

}  // namespace perfmon::diagnose
