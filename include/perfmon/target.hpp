// SPDX-License-Identifier: Apache-2.0
// perfmon: where events are counted — threads, processes, CPUs or a cgroup.
#pragma once

#include <sys/types.h>

#include <string>
#include <string_view>
#include <vector>

namespace perfmon {

class Workload;
class EmulatedWorkload;

struct Target {
  enum class Kind {
    Self,     // the calling thread (and, with inherit, the threads it creates afterwards)
    Threads,  // the listed threads, one counter set each
    Cpus,     // everything that runs on the listed CPUs
    Cgroup,   // tasks of one cgroup while they run on the listed CPUs
  };

  Kind kind = Kind::Self;
  std::vector<pid_t> threads;   // Threads
  std::vector<int> cpus;        // Cpus, Cgroup
  std::string cgroup;           // Cgroup: a path below the cgroup mount, or an absolute path
  bool enable_on_exec = false;  // counting starts when the (stopped) workload calls exec
  // Threads: a command on perfmon's emulated CPU, whose counts come from its plugin, not the kernel.
  const EmulatedWorkload* emulated_workload = nullptr;

  static Target self();
  static Target thread(pid_t tid);
  // Every thread the process has now; threads it creates later are counted with inherit.
  static Target process(pid_t pid);
  // A command started by perfmon::Workload and held before its exec.
  static Target workload(const Workload& workload);
  // A command on perfmon's emulated CPU (emulated.hpp): a CounterSession on it counts the whole
  // command (its processes and threads) from start() to stop(), exactly, and its reading says what
  // was emulated. The emulated CPU gives `instructions`, `branches` (all kinds), `branch-misses`
  // (the predictor model's), `L1-dcache-loads` and `L1-dcache-stores` (every load and store); from
  // the cache model `L1-dcache-load-misses`, `L1-dcache-store-misses`, `L1-icache-load-misses`,
  // `LLC-loads` and `LLC-stores` (the L1D misses that look in the LL), `LLC-load-misses`,
  // `LLC-store-misses`, `cache-references` (every LL lookup) and `cache-misses` (every LL miss).
  // Each with or without `:u` (all of it is user mode), all but instructions only if the
  // workload's options count them; any other event is unsupported, with the reason.
  static Target emulated(const EmulatedWorkload& workload);
  static Target cpu_list(std::vector<int> cpus);
  static Target all_cpus();
  static Target cgroup_on(std::string path, std::vector<int> cpus = {});

  bool cpu_wide() const { return kind == Kind::Cpus || kind == Kind::Cgroup; }
};

// A CPU list as the kernel writes it ("0-3,5"), each CPU below the number this machine can have
// (/sys/devices/system/cpu/possible). Throws perfmon::Error saying what is wrong with it.
std::vector<int> parse_cpu_list(std::string_view text);
// CPUs in that form again.
std::string format_cpu_list(const std::vector<int>& cpus);

}  // namespace perfmon
