// SPDX-License-Identifier: Apache-2.0
#include "perfmon/probe.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <vector>

#include "diagnose/explain.hpp"
#include "diagnose/fallback.hpp"
#include "kernel/fd.hpp"
#include "kernel/perf_event.hpp"

namespace perfmon {

std::string probe_event(const perf_event_attr& event_attr) {
  perf_event_attr attr = event_attr;
  attr.size = sizeof attr;
  attr.disabled = 1;
  std::optional<diagnose::Privilege> privilege;  // read only if the kernel refuses
  while (true) {
    int fd = kernel::perf_event_open(attr, 0, -1, -1, 0);
    if (fd >= 0) {
      ::close(fd);
      return "";
    }
    if (!privilege) privilege = diagnose::current_privilege();
    // What a session would fall back to counts as usable here too.
    diagnose::NextAttempt next = diagnose::next_attempt({attr, -fd}, *privilege);
    if (next.fallback == diagnose::Fallback::None) return diagnose::open_failure_cause(-fd, attr, 0, -1);
    attr = next.attr;
  }
}

bool counts_whole_cpus_only(const perf_event_attr& attr) {
  return diagnose::counts_whole_cpus_only(attr.type);
}

namespace {

// Does a pinned group of n instructions:u open and run on this thread?
bool group_runs(int n) {
  std::vector<kernel::FileDescriptor> fds;
  for (int i = 0; i < n; ++i) {
    perf_event_attr attr{};
    attr.size = sizeof attr;
    attr.type = PERF_TYPE_HARDWARE;
    attr.config = PERF_COUNT_HW_INSTRUCTIONS;
    attr.exclude_kernel = 1;
    attr.exclude_hv = 1;
    attr.read_format = PERF_FORMAT_GROUP | PERF_FORMAT_TOTAL_TIME_RUNNING;
    attr.disabled = i == 0;
    attr.pinned = i == 0;
    const int fd = kernel::perf_event_open(attr, 0, -1, fds.empty() ? -1 : fds.front().get(), 0);
    if (fd < 0) return false;
    fds.emplace_back(fd);
  }
  kernel::enable(fds.front().get(), true);
  volatile int sink = 0;
  for (int i = 0; i < 1000; ++i) sink = sink + i;
  kernel::disable(fds.front().get(), true);
  std::vector<std::uint64_t> words(2 + static_cast<std::size_t>(n));
  const ssize_t got = ::read(fds.front().get(), words.data(), words.size() * sizeof(std::uint64_t));
  return got > 0 && words[1] > 0;  // nr, time_running, values: a pinned group it could not keep reads EOF
}

}  // namespace

std::optional<int> probe_programmable_counters(int fixed_for_instructions) {
  if (!group_runs(1)) return std::nullopt;
  int n = 1;
  while (n < 64 && group_runs(n + 1)) ++n;
  return std::max(0, n - fixed_for_instructions);
}

}  // namespace perfmon
