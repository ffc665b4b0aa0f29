// SPDX-License-Identifier: Apache-2.0
// Where a measurement counts: the request's choice as the library's Target, and whether the
// threads it watches still run.
#include <filesystem>
#include <fstream>
#include <string>
#include <system_error>

#include "perfmon/measurement.hpp"

namespace perfmon {

namespace {

// One that has exited but is not reaped yet (a zombie, Z) has ended too, unless it leads a process
// whose other threads still run.
bool thread_alive(pid_t tid) {
  const std::string proc = "/proc/" + std::to_string(tid);
  std::string stat;
  std::getline(std::ifstream(proc + "/stat"), stat);
  const std::size_t name_end = stat.rfind(')');
  if (name_end == std::string::npos || name_end + 2 >= stat.size()) return false;
  const char state = stat[name_end + 2];
  if (state != 'Z' && state != 'X') return true;
  std::error_code ec;
  std::size_t threads = 0;
  for (auto it = std::filesystem::directory_iterator(proc + "/task", ec); !ec && it != std::filesystem::end(it);
       it.increment(ec))
    ++threads;
  return threads > 1;
}

}  // namespace

Target make_target(const TargetChoice& c, const Workload* workload) {
  if (!c.cgroup.empty()) return Target::cgroup_on(c.cgroup, c.cpus.value_or(std::vector<int>{}));
  if (c.cpus) return c.cpus->empty() ? Target::all_cpus() : Target::cpu_list(*c.cpus);
  if (c.all_cpus) return Target::all_cpus();
  if (!c.pids.empty()) {
    Target target = Target::process(c.pids.front());
    for (std::size_t i = 1; i < c.pids.size(); ++i)
      for (pid_t tid : Target::process(c.pids[i]).threads) target.threads.push_back(tid);
    return target;
  }
  if (!c.tids.empty()) {
    Target target = Target::thread(c.tids.front());
    target.threads = c.tids;
    return target;
  }
  if (workload != nullptr) return Target::workload(*workload);
  return Target::self();
}

bool targets_alive(const Target& target) {
  if (target.kind != Target::Kind::Threads) return true;
  for (pid_t tid : target.threads)
    if (thread_alive(tid)) return true;
  return false;
}

}  // namespace perfmon
