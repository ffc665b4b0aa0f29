// SPDX-License-Identifier: Apache-2.0
#include "diagnose/explain.hpp"

#include <linux/hw_breakpoint.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <optional>

#include "diagnose/host.hpp"
#include "diagnose/privileges.hpp"
#include "events/sources/sysfs_pmu.hpp"
#include "kernel/perf_event.hpp"
#include "kernel/read_format.hpp"
#include "kernel/text_file.hpp"

namespace perfmon::diagnose {

bool is_unsupported_errno(int errnum) noexcept {
  return errnum == ENOENT || errnum == EOPNOTSUPP || errnum == ENODEV || errnum == ENXIO;
}

ErrorKind open_error_kind(int errnum) noexcept {
  switch (errnum) {
    case ENOENT:
    case ENODEV:
    case ENXIO:
    case EOPNOTSUPP:
    case ENOSYS:
      return ErrorKind::Unsupported;
    case EACCES:
    case EPERM:
      return ErrorKind::Permission;
    case ESRCH:
      return ErrorKind::NoSuchTarget;
    case EMFILE:
    case ENFILE:
    case EBUSY:
    case ENOSPC:
    case EMSGSIZE:
      return ErrorKind::Limit;
    case EINVAL:
    case E2BIG:
      return ErrorKind::InvalidEvent;
    default:
      return ErrorKind::System;
  }
}

namespace {

std::string hex(std::uint64_t value) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "%llx", static_cast<unsigned long long>(value));
  return buf;
}

std::string no_pmu_reason() {
  if (core_pmu_exposed()) return "";
  return running_under_hypervisor()
             ? "no hardware PMU is exposed: this is a virtual machine whose hypervisor does not pass "
               "the PMU through (enable vPMU in the hypervisor, or use software events and tracepoints)"
             : "no hardware PMU is exposed by this kernel (check dmesg for the PMU driver, or use "
               "software events and tracepoints)";
}

std::string permission_advice(const perf_event_attr& attr, pid_t pid, int cpu) {
  if (is_perf_privileged())
    return "this process is privileged, so something other than perf_event_paranoid refused it (a security "
           "module such as SELinux or AppArmor, or seccomp)";
  const int level = perf_event_paranoid();
  const std::string paranoid = "perf_event_paranoid is " + std::to_string(level);
  if (cpu >= 0)  // a whole CPU, or a cgroup on it
    return paranoid +
           ": monitoring a whole CPU needs perf_event_paranoid 0 or less ('sysctl "
           "kernel.perf_event_paranoid=0'), CAP_PERFMON or root";
  // Another user's process: the kernel wants the right to trace it.
  if (std::optional<uid_t> owner = process_owner(pid); pid > 0 && owner && *owner != geteuid())
    return "process " + std::to_string(pid) + " belongs to another user (uid " + std::to_string(*owner) +
           "); monitoring it needs the right to trace it: root, CAP_PERFMON or CAP_SYS_PTRACE";
  if (!attr.exclude_kernel && level >= 2) {
    if (attr.exclude_user)  // a kernel-only event: user space only would count nothing
      return paranoid +
             ": counting the kernel needs perf_event_paranoid 1 or less ('sysctl "
             "kernel.perf_event_paranoid=1'), CAP_PERFMON or root";
    return paranoid +
           ": add the ':u' modifier to count user space only, or allow kernel counting with 'sysctl "
           "kernel.perf_event_paranoid=1' or CAP_PERFMON";
  }
  if (level >= 3)
    return paranoid +
           ": this kernel lets no unprivileged user use perf events; lower it with 'sysctl "
           "kernel.perf_event_paranoid=2', or run with CAP_PERFMON";
  return paranoid + " (" + paranoid_meaning(level) + "); run with CAP_PERFMON or root";
}

// Reopens the event with each set attribute cleared in turn; the first that then opens is the one
// the kernel refused.
std::string find_rejected_attribute(const perf_event_attr& attr, pid_t pid, int cpu, int group_fd,
                                    unsigned long flags) {
  struct Candidate {
    const char* name;
    bool set;
    void (*clear)(perf_event_attr&);
  };
  const bool breakpoint = attr.type == PERF_TYPE_BREAKPOINT;
  const Candidate candidates[] = {
      {"precise_ip (:p)", attr.precise_ip != 0, [](perf_event_attr& a) { a.precise_ip = 0; }},
      {"user/kernel/hypervisor filtering (:u, :k, :h)", attr.exclude_user || attr.exclude_kernel || attr.exclude_hv,
       [](perf_event_attr& a) { a.exclude_user = a.exclude_kernel = a.exclude_hv = 0; }},
      {"exclude_guest (:H)", attr.exclude_guest != 0, [](perf_event_attr& a) { a.exclude_guest = 0; }},
      {"exclude_host (:G)", attr.exclude_host != 0, [](perf_event_attr& a) { a.exclude_host = 0; }},
      {"exclude_idle (:I)", attr.exclude_idle != 0, [](perf_event_attr& a) { a.exclude_idle = 0; }},
      {"exclusive (:e)", attr.exclusive != 0, [](perf_event_attr& a) { a.exclusive = 0; }},
      {"pinned (:D)", attr.pinned != 0, [](perf_event_attr& a) { a.pinned = 0; }},
      {"inherit", attr.inherit != 0, [](perf_event_attr& a) { a.inherit = 0; }},
      {"enable_on_exec", attr.enable_on_exec != 0, [](perf_event_attr& a) { a.enable_on_exec = 0; }},
      {"the PERF_FORMAT_LOST read format", (attr.read_format & PERF_FORMAT_LOST) != 0,
       [](perf_event_attr& a) { a.read_format &= ~static_cast<__u64>(PERF_FORMAT_LOST); }},
      // A breakpoint's config1 and config2 are its address and length, not attributes to drop.
      {"config1", attr.config1 != 0 && !breakpoint, [](perf_event_attr& a) { a.config1 = 0; }},
      {"config2", attr.config2 != 0 && !breakpoint, [](perf_event_attr& a) { a.config2 = 0; }},
  };
  for (const Candidate& candidate : candidates) {
    if (!candidate.set) continue;
    perf_event_attr trial = attr;
    candidate.clear(trial);
    int fd = kernel::perf_event_open(trial, pid, cpu, group_fd, flags);
    if (fd >= 0) {
      ::close(fd);
      return candidate.name;
    }
  }
  return "";
}

}  // namespace

bool counts_whole_cpus_only(std::uint32_t type, const std::string& devices) {
  if (type < PERF_TYPE_MAX) return false;  // perf's own types: the CPU's PMU, software, tracepoints
  std::error_code ec;
  for (const std::filesystem::directory_entry& pmu : std::filesystem::directory_iterator(devices, ec)) {
    if (kernel::read_first_line((pmu.path() / "type").string()) != std::to_string(type)) continue;
    return std::filesystem::exists(pmu.path() / "cpumask", ec);
  }
  return false;
}

std::string open_failure_cause(int errnum, const perf_event_attr& attr, pid_t pid, int cpu) {
  switch (errnum) {
    case ENOENT:
    case ENODEV:
    case EOPNOTSUPP: {
      if (errnum == EOPNOTSUPP && (attr.sample_type & PERF_SAMPLE_BRANCH_STACK))
        return "this event records no branch stacks: they need a PMU with a branch record (Intel LBR, AMD "
               "BRS, Arm BRBE) and one of its events; sample without branch stacks, or on such a machine.";
      if (events::is_core_pmu("", attr.type)) {
        std::string why = no_pmu_reason();
        if (!why.empty()) return why + ".";
      }
      if (errnum == ENODEV && cpu >= 0) return "the PMU cannot count it on CPU " + std::to_string(cpu) + ".";
      if (errnum == EOPNOTSUPP) {
        if (attr.sample_period != 0 || attr.freq)
          return "this PMU cannot sample (no overflow interrupt); count it instead of sampling it.";
        return "this PMU does not support a requested feature (an exclude modifier such as :u or "
               ":k, or branch sampling); drop the modifier.";
      }
      return "the PMU does not know this event (type " + std::to_string(attr.type) + ", config 0x" + hex(attr.config) +
             ").";
    }
    case EACCES:
    case EPERM:
      return "permission denied: " + permission_advice(attr, pid, cpu) + ".";
    case EINVAL:
      if (attr.precise_ip > 0)
        return "the PMU rejected precise sampling level " + std::to_string(attr.precise_ip) +
               "; use fewer 'p' modifiers.";
      if (attr.type == PERF_TYPE_BREAKPOINT)
        return "the kernel rejected the breakpoint (address not aligned to its length, or a "
               "length or access type this CPU does not support).";
      if (pid == -1 && cpu < 0) return "a CPU-wide event is opened on one CPU at a time, and none was given.";
      if (pid != -1 && counts_whole_cpus_only(attr.type))
        return "this PMU counts whole CPUs only (it has a cpumask, as uncore and RAPL energy PMUs do): count it on "
               "all CPUs or on chosen ones, not on a process or thread.";
      if (attr.freq) {
        const std::string limit = kernel::read_first_line("/proc/sys/kernel/perf_event_max_sample_rate");
        if (!limit.empty() && attr.sample_freq > std::strtoull(limit.c_str(), nullptr, 10))
          return "a sampling frequency of " + std::to_string(attr.sample_freq) + " Hz is above the kernel's limit of " +
                 limit +
                 " samples a second (kernel.perf_event_max_sample_rate); sample at that rate or less, or raise "
                 "the limit as root with 'sysctl kernel.perf_event_max_sample_rate=" +
                 std::to_string(attr.sample_freq) + "'.";
      }
      return "the kernel rejected one of its attributes (config 0x" + hex(attr.config) +
             " out of range for this PMU, or a modifier this event does not take).";
    case EMFILE:
    case ENFILE: {
      rlimit limit{};
      getrlimit(RLIMIT_NOFILE, &limit);
      return "too many open files (the limit is " + std::to_string(limit.rlim_cur) +
             "); raise it with 'ulimit -n', or monitor fewer events, CPUs or threads.";
    }
    case ESRCH:
      return "no such process or thread " + std::to_string(pid) + " (it may have exited).";
    case EBUSY:
      return "the counter is in exclusive use by another tool or the NMI watchdog; stop it "
             "or set 'sysctl kernel.nmi_watchdog=0'.";
    case ENOSPC:
      return "no free hardware breakpoint slots (the CPU has four); use fewer breakpoints.";
    case E2BIG:
      return "the kernel is older than this build's perf_event_attr and rejected an attribute "
             "it does not know; drop the newest modifiers.";
    case ENOSYS:
      return "this kernel has no perf_event_open(2) (built without CONFIG_PERF_EVENTS).";
    case EMSGSIZE:
      return "the group has more events than the PMU can ever count together; split it.";
    default:
      return std::string(std::strerror(errnum)) + ".";
  }
}

std::string describe_open_failure(int errnum, const perf_event_attr& attr, pid_t pid, int cpu, int group_fd,
                                  unsigned long flags, std::string_view what) {
  const std::string start = "cannot open event '" + std::string(what) + "': ";
  if (errnum == EINVAL && attr.type == PERF_TYPE_BREAKPOINT && attr.bp_type != HW_BREAKPOINT_X && attr.bp_len != 0 &&
      attr.bp_addr % attr.bp_len != 0)
    return start + "the breakpoint address 0x" + hex(attr.bp_addr) + " is not aligned to its length (" +
           std::to_string(attr.bp_len) + " bytes); watch an address that is a multiple of it.";
  if (errnum == E2BIG && group_fd >= 0) {
    // The kernel refuses a group whose read would exceed 16 KiB (perf_event_validate_size).
    const kernel::GroupReadLayout layout(attr.read_format | PERF_FORMAT_GROUP);
    const std::size_t most = (16 * 1024 / 8 - layout.words(0)) / (layout.words(1) - layout.words(0));
    return start + "the group has more events than the kernel returns in one read (16 KiB of values, about " +
           std::to_string(most) + " events); split it into smaller groups.";
  }
  if (errnum == EINVAL) {
    if (std::string culprit = find_rejected_attribute(attr, pid, cpu, group_fd, flags); !culprit.empty())
      return start + "the kernel rejects " + culprit + " for it; drop the modifier or option that sets it.";
  }
  return start + open_failure_cause(errnum, attr, pid, cpu);
}

}  // namespace perfmon::diagnose
