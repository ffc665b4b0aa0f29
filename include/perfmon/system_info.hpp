// SPDX-License-Identifier: Apache-2.0
// perfmon: what this machine and kernel allow — the facts behind `perfmon info`.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "perfmon/catalog.hpp"

namespace perfmon {

struct CounterCapacity {
  std::string source;                  // where the numbers come from ("CPUID leaf 0AH", ...)
  std::optional<int> version;          // architectural perfmon version (Intel)
  std::optional<int> general_purpose;  // programmable counters per logical CPU
  std::optional<int> general_width;    // their width in bits
  std::optional<int> fixed;            // fixed-function counters
  std::optional<int> fixed_width;
};

struct SystemInfo {
  std::string kernel;      // "Linux 6.1.0-13-amd64 x86_64"
  std::string cpu_vendor;  // "GenuineIntel", "AuthenticAMD", "ARM", ...
  std::string cpu_model;   // model name
  std::optional<int> family, model, stepping;
  bool hypervisor = false;
  std::string hypervisor_vendor;  // "KVMKVMKVM", "Microsoft Hv", ... where CPUID tells

  std::vector<PmuSummary> pmus;
  bool hardware_pmu = false;  // a core PMU is registered
  std::string hardware_pmu_name;
  std::string hardware_pmu_explanation;  // why there is none, or which one there is

  int paranoid = 0;
  std::string paranoid_meaning;  // what the level means by the kernel's documentation
  bool root = false, cap_perfmon = false, cap_sys_admin = false;
  bool privileged = false;         // root, CAP_PERFMON or CAP_SYS_ADMIN
  std::string permission_summary;  // what this process may do, in one phrase
  // What users without privileges may do here, found by trying a software event (as user nobody
  // when this process is root), not read off the paranoid level: kernels differ in what it means.
  bool unprivileged_tried = false;
  bool unprivileged_own_user_space = false, unprivileged_own_kernel = false, unprivileged_cpu_wide = false;
  std::string unprivileged_summary;  // "perf_event_paranoid 2; tried as user nobody: own processes, user space only"

  std::optional<long> max_sample_rate;                           // /proc/sys/kernel/perf_event_max_sample_rate
  std::optional<long> mlock_kb;                                  // /proc/sys/kernel/perf_event_mlock_kb
  std::optional<long> memlock_limit_kb;                          // RLIMIT_MEMLOCK (nullopt: unlimited)
  std::optional<int> nmi_watchdog;                               // /proc/sys/kernel/nmi_watchdog
  std::vector<std::pair<std::string, std::string>> user_access;  // rdpmc / perf_user_access knobs
  std::string tracefs;                                           // where tracefs is mounted, or ""
  std::string tracefs_problem;                                   // why it cannot be used, and what to do

  std::optional<CounterCapacity> counters;
  std::vector<std::string> advice;  // what to do next, each a sentence
};

SystemInfo collect_system_info(const EventCatalog& catalog);
// Only the CPU's fields (kernel, cpu_vendor, cpu_model, family/model/stepping, hypervisor,
// counters): cheap, no catalogue and no probing.
SystemInfo collect_cpu_info();

// What a measurement may use of one logical CPU's counters at once: the machine's own count (CPUID,
// the arm_pmu driver) less what the NMI watchdog holds. Cheap: no probing, no catalogue.
struct CounterBudget {
  int general = 0;  // programmable counters
  // The generic event (PERF_COUNT_HW_*) each fixed counter counts, in counter order: Intel's
  // instructions, cycles, ref-cycles; arm64's cycle counter.
  std::vector<std::uint64_t> fixed_events;
  std::string source;  // where the numbers come from, and what was taken off
};
// Nothing when the machine does not say (no CPUID leaf, no kernel log line).
std::optional<CounterBudget> counter_budget();

}  // namespace perfmon
