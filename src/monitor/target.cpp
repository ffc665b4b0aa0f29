#include "perfmon/target.hpp"

#include <algorithm>
#include <cerrno>
#include <filesystem>
#include <string>

#include "kernel/cpu_list.hpp"
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
    throw Error("no such process " + std::to_string(pid) + ": check the PID (it may have exited).", ESRCH);
  std::sort(target.threads.begin(), target.threads.end());
  return target;
}

Target Target::workload(const Workload& workload) {
  Target target = thread(workload.pid());
  target.enable_on_exec = true;
  return target;
}

Target Target::cpu_list(std::vector<int> cpus) {
  Target target;
  target.kind = Kind::Cpus;
  std::vector<int> online = kernel::online_cpus();
  for (int cpu : cpus)
    if (std::find(online.begin(), online.end(), cpu) == online.end())
      throw Error(
          "CPU " + std::to_string(cpu) + " is not online; online CPUs are " + kernel::format_cpu_list(online) + ".",
          ENODEV);
  target.cpus = std::move(cpus);
  return target;
}

Target Target::all_cpus() {
  return cpu_list(kernel::online_cpus());
}

Target Target::cgroup_on(std::string path, std::vector<int> cpus) {
  Target target = cpus.empty() ? all_cpus() : cpu_list(std::move(cpus));
  target.kind = Kind::Cgroup;
  target.cgroup = std::move(path);
  return target;
}

}  // namespace perfmon
