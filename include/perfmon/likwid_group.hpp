// SPDX-License-Identifier: Apache-2.0
// perfmon: likwid's performance groups (likwid-perfctr -g GROUP), read at run time from an
// installed likwid (/usr/share/likwid/perfgroups/<arch>/<GROUP>.txt; GPL data, never bundled):
// each group's events on their counters and its metrics, turned into a metric table over perf's
// event names that perfmon counts and evaluates as it does perf's metrics.
//
//   perfmon::LikwidGroup group = perfmon::read_likwid_group("", perfmon::likwid_arch(this_cpu_id()), "BRANCH");
//   perfmon::MetricTable table = likwid_group_metrics(group);  // then MetricSet, as for -M
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "perfmon/metric_table.hpp"

namespace perfmon {

struct LikwidGroup {
  std::string name;         // the file's name without .txt: "BRANCH"
  std::string arch;         // its directory: "skylake", "arm8_n1"
  std::string description;  // SHORT
  struct Counter {
    std::string counter;  // as the EVENTSET writes it, options and all: "PMC0", "PMC3:EDGEDETECT"
    std::string event;    // likwid's event name: "BR_INST_RETIRED_ALL_BRANCHES"
  };
  std::vector<Counter> counters;
  struct Formula {
    std::string name;     // "Branch misprediction ratio"
    std::string unit;     // what the brackets said: "MHz", "MBytes/s"; "" none
    std::string formula;  // over counters, time and inverseClock: "PMC1/PMC0"
  };
  std::vector<Formula> metrics;
  std::string long_description;  // LONG
};

// Reads a group file's text. Throws perfmon::Error (InvalidArgument) naming `source` and the line
// that is not likwid's group format (a section missing, an EVENTSET line without its event).
LikwidGroup parse_likwid_group(std::string_view text, std::string_view name, std::string_view arch,
                               std::string_view source);

// Where likwid's groups are: $LIKWID_PERFGROUPS if set, else /usr/share/likwid/perfgroups.
std::string likwid_groups_dir();
// likwid's architecture directory for the CPU of `cpuid` (this_cpu_id()'s form), as likwid names
// them: "skylake", "skylakeX", "ICX", "zen3", "arm8_n1", "arm8"; "" for one likwid has no groups for.
std::string likwid_arch(const std::string& cpuid);
// The groups of `arch` in `dir` ("" for likwid_groups_dir()), sorted; none where it has no directory.
std::vector<std::string> likwid_group_names(const std::string& dir, const std::string& arch);
// One group. Throws perfmon::Error (InvalidArgument): no such group (naming those there), or the
// file cannot be read or parsed.
LikwidGroup read_likwid_group(const std::string& dir, const std::string& arch, const std::string& name);

// A group as LIKWID_EVENTS names one (likwid-perfctr -g's argument): one of `arch`'s groups by name
// ("BRANCH"), or likwid's own event set ("INSTR_RETIRED_ANY:FIXC0,CPU_CLK_UNHALTED_CORE:FIXC1", a
// group named "Custom" without metrics); nullopt where the text is neither (an event list in perf's
// syntax, whose events are not likwid's upper-case EVENT:COUNTER pairs). Throws as read_likwid_group
// where a group of that name cannot be read.
std::optional<LikwidGroup> likwid_group_of(const std::string& dir, const std::string& arch, std::string_view text);

// The event perf names for likwid's `event` on `arch`: its fixed counters' events as perf's generic
// ones (INSTR_RETIRED_ANY: instructions), energy as the power PMU's, Intel's EVENT_UMASK as
// EVENT.UMASK where the CPU's event table (libpfm4's) has it, Arm's as the PMU's own names; `counter`'s
// options (EDGEDETECT, THRESHOLD=, INVERT) as modifiers. Else likwid's name, which the catalogue
// then refuses with a reason.
std::string likwid_event_name(const std::string& arch, std::string_view counter, std::string_view event);

// The group's metrics as a metric table in perf's language: counters replaced by their events
// (likwid_event_name), `time` by duration_time, `inverseClock` by 1 / #system_tsc_freq, likwid's
// num_sockets by #num_packages; each metric named as likwid names it, its bracketed unit its unit.
// A word that is none of these stays a name, which no event has: the metric then says it lacks it.
MetricTable likwid_group_metrics(const LikwidGroup& group);

}  // namespace perfmon
