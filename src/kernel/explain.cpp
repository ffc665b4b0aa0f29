#include "kernel/explain.hpp"

#include <sys/resource.h>

#include <dirent.h>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>

#include "kernel/privileges.hpp"

namespace perfmon::kernel {

bool core_pmu_exposed() noexcept {
  static const bool exposed = [] {
    DIR* dir = ::opendir("/sys/bus/event_source/devices");
    if (dir == nullptr) return false;
    bool found = false;
    while (dirent* entry = ::readdir(dir)) {
      if (entry->d_name[0] == '.') continue;
      std::ifstream in(std::string("/sys/bus/event_source/devices/") + entry->d_name + "/type");
      int type = -1;
      if (in >> type && type == PERF_TYPE_RAW) found = true;
      // Hybrid x86 (cpu_core/cpu_atom) and arm64 (armv8_pmuv3_*) core PMUs get dynamic types.
      std::string name = entry->d_name;
      if (name == "cpu_core" || name == "cpu_atom" || name.rfind("armv8_", 0) == 0 || name.rfind("armv7_", 0) == 0)
        found = true;
    }
    ::closedir(dir);
    return found;
  }();  // PMUs are registered at boot; one look per process
  return exposed;
}

bool running_under_hypervisor() noexcept {
  static const bool under_hypervisor = [] {
    std::ifstream in("/proc/cpuinfo");  // slow to read: the kernel formats every CPU's entry
    std::string line;
    while (std::getline(in, line))
      if (line.rfind("flags", 0) == 0) return line.find(" hypervisor") != std::string::npos;
    return false;
  }();
  return under_hypervisor;
}

bool is_unsupported_errno(int errnum) noexcept {
  return errnum == ENOENT || errnum == EOPNOTSUPP || errnum == ENODEV || errnum == ENXIO;
}

namespace {

std::string hex(std::uint64_t value) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "%llx", static_cast<unsigned long long>(value));
  return buf;
}

bool is_hardware_type(std::uint32_t type) {
  return type == PERF_TYPE_HARDWARE || type == PERF_TYPE_HW_CACHE || type == PERF_TYPE_RAW;
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
  int level = perf_event_paranoid();
  std::string text = "perf_event_paranoid is " + std::to_string(level) + " (" + paranoid_meaning(level) + ")";
  if (is_perf_privileged()) {
    text += "; this process is privileged, so something else (a security module or seccomp) refused it";
    return text;
  }
  if (pid == -1 && cpu >= 0) {
    text += "; CPU-wide monitoring needs perf_event_paranoid <= 0, CAP_PERFMON or root";
  } else if (!attr.exclude_kernel && level >= 2) {
    text +=
        "; add the ':u' modifier to count user space only, or lower it with "
        "'sysctl kernel.perf_event_paranoid=1', or run with CAP_PERFMON";
  } else {
    text +=
        "; monitoring another user's process needs CAP_PERFMON or root, or 'sysctl "
        "kernel.perf_event_paranoid=-1'";
  }
  return text;
}

}  // namespace

std::string explain_open_failure(int errnum, const perf_event_attr& attr, pid_t pid, int cpu, std::string_view what) {
  return "cannot open event '" + std::string(what) + "': " + open_failure_cause(errnum, attr, pid, cpu);
}

std::string open_failure_cause(int errnum, const perf_event_attr& attr, pid_t pid, int cpu) {
  switch (errnum) {
    case ENOENT:
    case ENODEV:
    case EOPNOTSUPP: {
      if (is_hardware_type(attr.type)) {
        std::string why = no_pmu_reason();
        if (!why.empty()) return why + ".";
      }
      if (errnum == ENODEV && cpu >= 0)
        return "the PMU cannot count it on CPU " + std::to_string(cpu) + " (see 'perfmon list').";
      if (errnum == EOPNOTSUPP) {
        if (attr.sample_period != 0 || attr.freq)
          return "this PMU cannot sample (no overflow interrupt); count it instead of sampling it.";
        return "this PMU does not support a requested feature (an exclude modifier such as :u or "
               ":k, or branch sampling); drop the modifier.";
      }
      return "the PMU does not know this event (type " + std::to_string(attr.type) + ", config 0x" + hex(attr.config) +
             "); check the name with 'perfmon list'.";
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
      if (pid == -1 && cpu < 0) return "a CPU-wide event needs a CPU; name one with -C or use -a.";
      return "the kernel rejected one of its attributes (config 0x" + hex(attr.config) +
             " out of range for this PMU, or a modifier this event does not take); check it with "
             "'perfmon list'.";
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

}  // namespace perfmon::kernel
