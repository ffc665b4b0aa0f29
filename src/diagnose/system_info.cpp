// SPDX-License-Identifier: Apache-2.0
#include "perfmon/system_info.hpp"

#include <sys/klog.h>
#include <sys/resource.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <linux/perf_event.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>

#include "arch/x86/cpuid.hpp"
#include "diagnose/host.hpp"
#include "diagnose/privileges.hpp"
#include "diagnose/unprivileged.hpp"
#include "kernel/text_file.hpp"
#include "perfmon/probe.hpp"

namespace perfmon {

namespace {

std::optional<long> read_long(const std::string& path) {
  std::string text = kernel::read_first_line(path);
  char* end = nullptr;
  long value = std::strtol(text.c_str(), &end, 10);
  if (text.empty() || end == text.c_str()) return std::nullopt;
  return value;
}

// x86: the vendor, family and model from CPUID, and the counters from leaf 0AH (Intel) or
// 80000001H/80000022H (AMD).
bool read_x86(SystemInfo& info) {
  std::optional<arch::X86Signature> signature = arch::host_x86_signature();
  if (!signature) return false;
  info.cpu_vendor = signature->vendor;
  info.family = static_cast<int>(signature->family);
  info.model = static_cast<int>(signature->model);
  info.stepping = static_cast<int>(signature->stepping);
  info.hypervisor = signature->hypervisor;
  if (info.hypervisor)
    if (auto leaf = arch::host_cpuid(0x40000000)) info.hypervisor_vendor = arch::decode_hypervisor_vendor(*leaf);
  if (info.cpu_vendor == "GenuineIntel") {
    std::optional<arch::CpuidRegisters> leaf0a = arch::host_cpuid(0xa);
    if (!leaf0a) return true;
    arch::ArchitecturalPerfmon leaf = arch::decode_cpuid_0a(*leaf0a);
    CounterCapacity counters;
    counters.source = "CPUID leaf 0AH";
    counters.version = static_cast<int>(leaf.version);
    counters.general_purpose = static_cast<int>(leaf.general_counters);
    counters.general_width = static_cast<int>(leaf.general_width);
    if (leaf.version > 1) {
      counters.fixed = static_cast<int>(leaf.fixed_counters);
      counters.fixed_width = static_cast<int>(leaf.fixed_width);
    }
    if (leaf.version > 0) info.counters = counters;
  } else if (info.cpu_vendor == "AuthenticAMD" || info.cpu_vendor == "HygonGenuine") {
    std::optional<arch::CpuidRegisters> ext1 = arch::host_cpuid(0x80000001);
    if (!ext1) return true;
    std::optional<arch::CpuidRegisters> ext22 = arch::host_cpuid(0x80000022);
    const bool has_v2 = ext22 && arch::decode_cpuid_80000022(*ext22).perfmon_v2;
    CounterCapacity counters;
    counters.source = has_v2 ? "CPUID leaf 80000022H (PerfMonV2)" : "CPUID leaf 80000001H (PerfCtrExtCore)";
    if (has_v2) counters.version = 2;
    counters.general_purpose = static_cast<int>(arch::amd_core_counters(*ext1, has_v2 ? &*ext22 : nullptr));
    counters.general_width = 48;
    info.counters = counters;
  }
  return true;
}

// The arm_pmu driver says how many counters it found when it probes:
// "hw perfevents: enabled with armv8_pmuv3 PMU driver, 7 counters available" (event counters plus
// the cycle counter). The kernel log is readable by root, or by anyone when dmesg_restrict is 0.
std::optional<CounterCapacity> counters_from_kernel_log() {
  int size = klogctl(10 /* SYSLOG_ACTION_SIZE_BUFFER */, nullptr, 0);
  if (size <= 0) return std::nullopt;
  std::string log(static_cast<std::size_t>(size), '\0');
  int got = klogctl(3 /* SYSLOG_ACTION_READ_ALL */, log.data(), size);
  if (got <= 0) return std::nullopt;
  log.resize(static_cast<std::size_t>(got));
  std::size_t at = log.find("hw perfevents: enabled with ");
  if (at == std::string::npos) return std::nullopt;
  std::string line = log.substr(at, log.find('\n', at) - at);
  std::size_t comma = line.rfind(", ");
  int total = comma == std::string::npos ? 0 : std::atoi(line.c_str() + comma + 2);
  if (total <= 1 || line.find("counters available") == std::string::npos) return std::nullopt;
  CounterCapacity counters;
  counters.source = "kernel log: " + line.substr(line.find("enabled with ") + 13);
  counters.general_purpose = total - 1;  // PMUv3: the event counters, and one dedicated cycle counter
  counters.fixed = 1;
  counters.fixed_width = 64;
  return counters;
}

void read_user_access(SystemInfo& info) {
  namespace fs = std::filesystem;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator("/sys/bus/event_source/devices", ec)) {
    std::string rdpmc = kernel::read_first_line((entry.path() / "rdpmc").string());
    if (!rdpmc.empty()) info.user_access.emplace_back(entry.path().string() + "/rdpmc", rdpmc);
  }
  std::string user_access = kernel::read_first_line("/proc/sys/kernel/perf_user_access");
  if (!user_access.empty()) info.user_access.emplace_back("/proc/sys/kernel/perf_user_access", user_access);
}

}  // namespace

std::optional<CounterBudget> counter_budget() {
  SystemInfo info;
  if (!read_x86(info)) info.counters = counters_from_kernel_log();
  if (!info.counters || !info.counters->general_purpose) return std::nullopt;
  const CounterCapacity& counters = *info.counters;
  CounterBudget budget;
  budget.general = *counters.general_purpose;
  budget.source = counters.source;
  const bool x86 = !info.cpu_vendor.empty() && info.cpu_vendor != "ARM" && !info.cpu_vendor.starts_with("0x");
  const std::vector<std::uint64_t> fixed_order =
      x86 ? std::vector<std::uint64_t>{PERF_COUNT_HW_INSTRUCTIONS, PERF_COUNT_HW_CPU_CYCLES,
                                       PERF_COUNT_HW_REF_CPU_CYCLES}
          : std::vector<std::uint64_t>{PERF_COUNT_HW_CPU_CYCLES};
  for (int i = 0; i < counters.fixed.value_or(0) && i < static_cast<int>(fixed_order.size()); ++i)
    budget.fixed_events.push_back(fixed_order[static_cast<std::size_t>(i)]);
  // Trying tells what is free for this measurement (the watchdog's counter, another user's pinned
  // events, a hypervisor that gives fewer than the CPU has), where a PMU opens at all.
  const int fixed_for_instructions =
      static_cast<int>(std::count(budget.fixed_events.begin(), budget.fixed_events.end(), PERF_COUNT_HW_INSTRUCTIONS));
  if (std::optional<int> probed = probe_programmable_counters(fixed_for_instructions)) {
    budget.source +=
        *probed == budget.general ? "; confirmed by trying" : "; " + std::to_string(*probed) + " free by trying";
    budget.general = *probed;
    if (read_long("/proc/sys/kernel/nmi_watchdog").value_or(0) == 1) {
      auto cycles = std::find(budget.fixed_events.begin(), budget.fixed_events.end(), PERF_COUNT_HW_CPU_CYCLES);
      if (cycles != budget.fixed_events.end()) *cycles = ~std::uint64_t{0};
    }
    return budget;
  }
  // The watchdog counts cycles, pinned: on a fixed cycle counter where there is one, else on a
  // programmable counter.
  if (read_long("/proc/sys/kernel/nmi_watchdog").value_or(0) == 1) {
    auto cycles = std::find(budget.fixed_events.begin(), budget.fixed_events.end(), PERF_COUNT_HW_CPU_CYCLES);
    if (cycles != budget.fixed_events.end()) {
      *cycles = ~std::uint64_t{0};  // held: no event of ours is placed there
      budget.source += "; the NMI watchdog holds the fixed cycle counter";
    } else if (budget.general > 0) {
      --budget.general;
      budget.source += "; the NMI watchdog holds one programmable counter";
    }
  }
  return budget;
}

SystemInfo collect_cpu_info() {
  SystemInfo info;
  utsname uts{};
  if (uname(&uts) == 0) info.kernel = std::string(uts.sysname) + " " + uts.release + " " + uts.machine;
  info.cpu_model = diagnose::cpuinfo_field("model name");
  if (info.cpu_model.empty()) info.cpu_model = diagnose::cpuinfo_field("CPU part");
  if (!read_x86(info)) {  // arm: /proc/cpuinfo, and the arm_pmu driver's own count of its counters
    std::string implementer = diagnose::cpuinfo_field("CPU implementer");
    info.cpu_vendor = implementer == "0x41" ? "ARM" : implementer;
    info.hypervisor = diagnose::running_under_hypervisor();
    if (info.cpu_model.starts_with("0x")) info.cpu_model = "CPU part " + info.cpu_model;
    info.counters = counters_from_kernel_log();
  }
  return info;
}

SystemInfo collect_system_info(const EventCatalog& catalog) {
  SystemInfo info = collect_cpu_info();
  info.pmus = catalog.pmus();
  for (const PmuSummary& pmu : info.pmus) {
    if (pmu.core && !info.hardware_pmu) {
      info.hardware_pmu = true;
      info.hardware_pmu_name = pmu.name;
    }
  }
  if (info.hardware_pmu) {
    info.hardware_pmu_explanation = "the kernel drives the CPU's counters through PMU '" + info.hardware_pmu_name + "'";
  } else if (info.hypervisor) {
    info.hardware_pmu_explanation =
        "none: this is a virtual machine" +
        (info.hypervisor_vendor.empty() ? std::string() : " (" + info.hypervisor_vendor + ")") +
        " and its hypervisor does not expose a virtual PMU, so the kernel registered no core PMU; cycles, "
        "instructions, cache and branch events and raw codes cannot be counted here";
  } else {
    info.hardware_pmu_explanation =
        "none: the kernel registered no core PMU (no driver for this CPU, or disabled); check 'dmesg | grep -i "
        "perf'";
  }

  info.paranoid = diagnose::perf_event_paranoid();
  info.paranoid_meaning = diagnose::paranoid_meaning(info.paranoid);
  info.root = geteuid() == 0;
  info.cap_perfmon = diagnose::has_capability(diagnose::Capability::Perfmon);
  info.cap_sys_admin = diagnose::has_capability(diagnose::Capability::SysAdmin);
  info.privileged = diagnose::is_perf_privileged();
  const diagnose::UnprivilegedAccess access = diagnose::probe_unprivileged_access();
  info.unprivileged_tried = access.probed;
  info.unprivileged_own_user_space = access.own_user_space;
  info.unprivileged_own_kernel = access.own_kernel;
  info.unprivileged_cpu_wide = access.cpu_wide;
  info.unprivileged_summary = "perf_event_paranoid " + std::to_string(info.paranoid) + "; " +
                              (!access.probed    ? access.summary
                               : info.privileged ? "tried as user nobody: " + access.summary
                                                 : "tried: " + access.summary);
  if (info.privileged)
    info.permission_summary = std::string("this process is ") +
                              (info.root ? "root" : "privileged (CAP_PERFMON or CAP_SYS_ADMIN)") +
                              ": every event, every process and every CPU may be monitored, kernel included";
  else
    info.permission_summary = "this process is unprivileged: " + info.unprivileged_summary;

  info.max_sample_rate = read_long("/proc/sys/kernel/perf_event_max_sample_rate");
  info.mlock_kb = read_long("/proc/sys/kernel/perf_event_mlock_kb");
  rlimit memlock{};
  if (getrlimit(RLIMIT_MEMLOCK, &memlock) == 0 && memlock.rlim_cur != RLIM_INFINITY)
    info.memlock_limit_kb = static_cast<long>(memlock.rlim_cur / 1024);
  if (auto watchdog = read_long("/proc/sys/kernel/nmi_watchdog")) info.nmi_watchdog = static_cast<int>(*watchdog);
  read_user_access(info);
  info.tracefs = catalog.tracefs_root();
  info.tracefs_problem = catalog.tracefs_problem();

  if (!info.hardware_pmu) {
    info.advice.push_back(
        "Hardware events cannot be counted on this machine. Software events (task-clock, "
        "page-faults, context-switches), tracepoints (syscalls:sys_enter_getppid) and breakpoints "
        "(mem:ADDR:x) work; for hardware counts use a machine with a PMU" +
        std::string(info.hypervisor ? " or enable the hypervisor's vPMU" : "") + ".");
  }
  if (info.hardware_pmu && info.nmi_watchdog.value_or(0) == 1)
    info.advice.push_back("The NMI watchdog holds one counter; 'sysctl kernel.nmi_watchdog=0' frees it.");
  if (!info.privileged && access.probed && !access.own_kernel)
    info.advice.push_back(
        "This process may not count the kernel: 'sysctl kernel.perf_event_paranoid=1' (or CAP_PERFMON) allows "
        "kernel counting, 0 whole CPUs.");
  if (info.tracefs.empty()) info.advice.push_back("Tracepoints cannot be resolved: " + info.tracefs_problem);
  if (info.hardware_pmu) {
    bool user_reads = false;
    for (const auto& [knob, value] : info.user_access)
      if (value != "0") user_reads = true;
    if (!user_reads && !info.user_access.empty())
      info.advice.push_back("User-mode counter reads (rdpmc/mrs) are disabled; reads fall back to read(2).");
  }
  return info;
}

}  // namespace perfmon
