// SPDX-License-Identifier: Apache-2.0
#include "targets.hpp"

#include <string>

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

}  // namespace perfmon::cli
