// SPDX-License-Identifier: Apache-2.0
#include "perfmon/target.hpp"

#include <algorithm>
#include <cerrno>
#include <filesystem>
#include <string>

#include "kernel/cpu_list.hpp"
#include "perfmon/emulated.hpp"
#include "perfmon/error.hpp"
#include "perfmon/workload.hpp"

namespace perfmon {

Target Target::self() {
  return Target{};
}

Target Target::thread(pid_t tid) {
  Target target;
  target.kind = Kind::Threads;
  target.threads = {tid};
  return target;
}

Target Target::process(pid_t pid) {
  Target target;
  target.kind = Kind::Threads;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator("/proc/" + std::to_string(pid) + "/task", ec))
    target.threads.push_back(static_cast<pid_t>(std::stol(entry.path().filename().string())));
  if (target.threads.empty())
    throw Error(ErrorKind::NoSuchTarget,
                "no such process " + std::to_string(pid) + ": check the PID (it may have exited).", ESRCH);
  std::sort(target.threads.begin(), target.threads.end());
  return target;
}

Target Target::workload(const Workload& workload) {
  Target target = thread(workload.pid());
  target.enable_on_exec = true;
  return target;
}

Target Target::emulated(const EmulatedWorkload& workload) {
  Target target = thread(workload.pid());
  target.emulated_workload = &workload;
  return target;
}

Target Target::cpu_list(std::vector<int> cpus) {
  Target target;
  target.kind = Kind::Cpus;
  std::vector<int> online = kernel::online_cpus();
  for (int cpu : cpus)
    if (std::find(online.begin(), online.end(), cpu) == online.end())
      throw Error(
          ErrorKind::NoSuchTarget,
          "CPU " + std::to_string(cpu) + " is not online; online CPUs are " + kernel::format_cpu_list(online) + ".",
          ENODEV);
  target.cpus = std::move(cpus);
  return target;
}

Target Target::all_cpus() {
  return cpu_list(kernel::online_cpus());
}

Target Target::cgroup_on(std::string path, std::vector<int> cpus) {
  if (path.empty())
    throw Error(ErrorKind::InvalidArgument, "no cgroup named: give a path below /sys/fs/cgroup.", EINVAL);
  Target target = cpus.empty() ? all_cpus() : cpu_list(std::move(cpus));
  target.kind = Kind::Cgroup;
  target.cgroup = std::move(path);
  return target;
}

std::vector<int> parse_cpu_list(std::string_view text) {
  std::vector<int> cpus;
  const int possible = kernel::possible_cpu_count();
  const std::string quoted = "'" + std::string(text) + "'";
  switch (kernel::parse_cpu_list(text, possible, cpus)) {
    case kernel::CpuListError::None:
      return cpus;
    case kernel::CpuListError::Malformed:
      throw Error(ErrorKind::InvalidArgument, "invalid CPU list " + quoted + ": write CPUs like 0-3,5.");
    case kernel::CpuListError::Backwards:
      throw Error(ErrorKind::InvalidArgument, "invalid CPU list " + quoted + ": a range runs backwards.");
    case kernel::CpuListError::TooLarge:
      break;
  }
  throw Error(ErrorKind::InvalidArgument, "invalid CPU list " + quoted + ": CPU numbers go up to " +
                                              std::to_string(possible - 1) + " on this machine.");
}

std::string format_cpu_list(const std::vector<int>& cpus) {
  return kernel::format_cpu_list(cpus);
}

}  // namespace perfmon
