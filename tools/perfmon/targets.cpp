#include "targets.hpp"

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <system_error>

#include "perfmon/target.hpp"

namespace perfmon::cli {

namespace {

std::vector<pid_t> parse_pid_list(std::string_view text, std::string_view option) {
  // Every piece between commas is an id: "1," and "1,,2" are refused, not read as "1" and "1,2".
  std::vector<pid_t> pids;
  for (;;) {
    std::size_t comma = text.find(',');
    pids.push_back(static_cast<pid_t>(parse_long(text.substr(0, comma), option, 1, 1L << 22)));
    if (comma == std::string_view::npos) return pids;
    text.remove_prefix(comma + 1);
  }
}

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

std::vector<Option> target_options(TargetChoice& c, Measure measure) {
  const bool count = measure == Measure::Count;
  return {
      {'p', "pid", "pid",
       count ? "count existing processes (comma-separated ids) until they exit"
             : "sample existing processes (comma-separated ids) until they exit",
       [&](std::string_view value) { c.pids = parse_pid_list(value, "--pid"); }},
      {'t', "tid", "tid",
       count ? "count existing threads (comma-separated ids) until they exit"
             : "sample existing threads (comma-separated ids) until they exit",
       [&](std::string_view value) { c.tids = parse_pid_list(value, "--tid"); }},
      {'a', "all-cpus", "",
       count ? "count system-wide, on every online CPU" : "sample system-wide, on every online CPU",
       [&](std::string_view) { c.all_cpus = true; }},
      {'C', "cpu", "cpus",
       count ? "count system-wide on these CPUs only (0-3,5)" : "sample system-wide on these CPUs only (0-3,5)",
       [&](std::string_view value) { c.cpus = parse_cpu_list(value); }},
  };
}

int targets_given(const TargetChoice& c) {
  return (c.pids.empty() ? 0 : 1) + (c.tids.empty() ? 0 : 1) + (c.all_cpus || c.cpus ? 1 : 0);
}

Target make_target(const TargetChoice& c, const Workload* workload) {
  if (!c.cgroup.empty()) return Target::cgroup_on(c.cgroup, c.cpus.value_or(std::vector<int>{}));
  if (c.cpus) return Target::cpu_list(*c.cpus);
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
  return Target::workload(*workload);
}

bool targets_alive(const Target& target) {
  if (target.kind != Target::Kind::Threads) return true;
  for (pid_t tid : target.threads)
    if (thread_alive(tid)) return true;
  return false;
}

}  // namespace perfmon::cli
