// Where stat and record measure: -p, -t, -a, -C (and stat's -G), parsed and checked the same way
// for both, and turned into the library's Target.
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "options.hpp"
#include "perfmon/target.hpp"
#include "perfmon/workload.hpp"

namespace perfmon::cli {

struct TargetChoice {
  std::vector<pid_t> pids, tids;
  bool all_cpus = false;
  std::optional<std::vector<int>> cpus;
  std::string cgroup;  // stat only
};

enum class Measure { Count, Sample };
// The options -p, -t, -a and -C, their help saying what is done.
std::vector<Option> target_options(TargetChoice& choice, Measure measure);
// How many of -p, -t and -a/-C were given (more than one is a usage error).
int targets_given(const TargetChoice& choice);
// The target: the chosen one, or the command's when none is. Throws perfmon::Error.
Target make_target(const TargetChoice& choice, const Workload* workload);
// False once every thread of a thread target has exited (always true for CPU-wide targets).
bool targets_alive(const Target& target);

}  // namespace perfmon::cli
