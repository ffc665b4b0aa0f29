// SPDX-License-Identifier: Apache-2.0
// What perf.data's header says of the machine that recorded it, read from this one (describe_this_host).
#include <sys/utsname.h>
#include <unistd.h>

#include <fstream>
#include <sstream>

#include "arch/x86/cpuid.hpp"
#include "diagnose/host.hpp"
#include "events/sources/tracefs.hpp"
#include "kernel/cpu_list.hpp"
#include "perfmon/perf_data.hpp"

namespace perfmon {

PerfDataHost describe_this_host(std::vector<std::string> command_line) {
  PerfDataHost host;
  utsname names{};
  if (::uname(&names) == 0) {
    host.hostname = names.nodename;
    host.os_release = names.release;
    host.arch = names.machine;
  }
  host.perf_version = "perfmon " PERFMON_VERSION;
  host.cpus_online = static_cast<std::uint32_t>(kernel::online_cpus().size());
  host.cpus_available = static_cast<std::uint32_t>(kernel::possible_cpu_count());
  host.cpu_description = diagnose::cpuinfo_field("model name");
  // perf's CPUID string: vendor,family,model,stepping on x86.
  if (std::optional<arch::X86Signature> cpu = arch::host_x86_signature())
    host.cpuid = cpu->vendor + "," + std::to_string(cpu->family) + "," + std::to_string(cpu->model) + "," +
                 std::to_string(cpu->stepping);
  std::ifstream meminfo("/proc/meminfo");
  for (std::string line; std::getline(meminfo, line);) {
    if (!line.starts_with("MemTotal:")) continue;
    std::istringstream(line.substr(9)) >> host.total_memory_kib;
    break;
  }
  host.command_line = std::move(command_line);
  host.tracefs_root = events::find_tracefs().root;
  return host;
}

}  // namespace perfmon
