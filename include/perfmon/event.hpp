// SPDX-License-Identifier: Apache-2.0
// perfmon: an event resolved to the exact perf_event_attr the kernel will be given.
#pragma once

#include <linux/perf_event.h>

#include <cstdint>
#include <string>
#include <vector>

namespace perfmon {

// One countable event: what the user wrote and the attr it resolved to.
struct Event {
  std::string name;            // as the user wrote it, modifiers included
  std::string pmu;             // the PMU that counts it: "cpu" (x86's core PMU), "armv8_pmuv3_0", "software",
                               // "tracepoint", "breakpoint", "msr", ...
  perf_event_attr attr{};      // type, config*, exclude_* and precise_ip set; the session sets the rest
  double scale = 1.0;          // multiply raw counts by this (sysfs events/<name>.scale)
  std::string unit;            // unit of the scaled value (sysfs events/<name>.unit), may be empty
  std::vector<int> cpus;       // CPUs the PMU counts on (sysfs cpumask); empty means every CPU
  std::string total_name;      // hybrid CPUs: the name its per-PMU copies add up under ("instructions"); else ""
  std::uint32_t counters = 0;  // programmable counters it may use where its table says (bit n: PMCn); 0: any
  bool pinned = false;         // ':D' — the event must always be on the PMU or it reports an error
  bool group_read = false;     // ':S' — sampled group members are read with the leader
  bool max_precise = false;    // ':P' — precise_ip starts at 3 and is lowered until the PMU accepts it
  bool weak_group = false;     // ':W' — if the group cannot be opened whole, open its events alone
  std::string filter;          // a tracepoint's ftrace filter (perf's --filter): it counts what passes
};

// Events that the kernel schedules onto the PMU together, all or none: perf's "{a,b,c}".
// An event written outside braces forms a group of its own.
struct EventGroup {
  std::vector<Event> events;
};

}  // namespace perfmon
