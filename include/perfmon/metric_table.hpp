// SPDX-License-Identifier: Apache-2.0
// perfmon: a table of metrics in perf's pmu-events JSON shape (MetricName, MetricExpr, MetricGroup,
// ScaleUnit, MetricThreshold, MetricConstraint, BriefDescription), metrics chosen from it by name
// or group, and a chosen set compiled for evaluation: the events it needs, the metrics it refers
// to (a metric's expression may name another), each value scaled and its threshold tested.
//
//   perfmon::MetricTable table = perfmon::MetricTable::from_json(json_text, "metrics.json");
//   perfmon::MetricSet set(table, table.select("ipc,TopdownL1"), facts);
//   // count set.events(); then, with their values (and standard errors) in that order:
//   std::vector<perfmon::MetricResult> results = set.evaluate(values, errors);
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "perfmon/catalog.hpp"
#include "perfmon/event.hpp"
#include "perfmon/metric_expression.hpp"
#include "perfmon/system_info.hpp"

namespace perfmon {

struct MetricDefinition {
  std::string name;                 // MetricName
  std::string expression;           // MetricExpr
  std::vector<std::string> groups;  // MetricGroup, split at ';'
  // ScaleUnit ("100%", "1GHz", "1per_sec"): the value is multiplied by `scale` and shown in `unit`.
  double scale = 1;
  std::string unit;
  std::string threshold;    // MetricThreshold: an expression over the table's (unscaled) metrics; "" none
  std::string constraint;   // MetricConstraint: NO_GROUP_EVENTS, NO_GROUP_EVENTS_NMI, NO_GROUP_EVENTS_SMT...
  std::string description;  // BriefDescription
};

class MetricTable {
 public:
  MetricTable() = default;
  // perf's metrics JSON: an array of objects, each with at least MetricName and MetricExpr (objects
  // without are events, skipped). Throws perfmon::Error (InvalidArgument) naming `source` and what
  // is wrong: not JSON, an entry's field of the wrong type, a ScaleUnit without a number, a name twice.
  static MetricTable from_json(std::string_view json, std::string_view source);
  // The metrics every machine has, over perf's generic events (perf's Default group and more:
  // CPUs_utilized, IPC, branch_miss_rate, cache and TLB miss rates...): perfmon's own table,
  // data/metrics/common.json.
  static MetricTable common();
  // The metrics of the CPU of `cpuid` (this_cpu_id()'s form) in the tables perfmon ships
  // (data/metrics/models: Intel's from intel/perfmon, Arm Neoverse's from Arm's telemetry data),
  // chosen as perf's mapfile.csv chooses; empty where they have none for it.
  static MetricTable shipped(const std::string& cpuid);
  // The name of that table ("sapphirerapids", "neoverse-n1"); "" where none.
  static std::string shipped_model(const std::string& cpuid);
  // The metrics a tool offers here: common(), PAPI's presets for this CPU (papi_presets.hpp), and
  // over them this CPU's own: from `pmu_events_dir` where it is given (for_cpu with
  // this_cpu_id()), else shipped(this_cpu_id()). Without `papi_presets`, PAPI's are not read (a
  // measurement whose list names none need not pay for them: names_papi_presets). Throws as for_cpu.
  static MetricTable for_this_machine(const std::string& pmu_events_dir, bool papi_presets = true);
  // The metrics of this CPU in a directory laid out as perf's pmu-events/arch/<arch>: a mapfile.csv
  // whose rows ("GenuineIntel-6-55-[4-7],v1.29,skylakex,core") name the directory of each CPU's
  // JSON files, by perf's CPU id (this_cpu_id()); every *.json there is read for its metrics. Throws
  // perfmon::Error (InvalidArgument) saying what is missing: the mapfile, a row for `cpuid`, the files.
  static MetricTable for_cpu(const std::string& directory, const std::string& cpuid);
  // The metrics of `other` added, each replacing one of this table's of the same name (a CPU's own
  // table over the common one).
  void merge(MetricTable other);
  // Throws as from_json where the name is already in the table (names compare without case, as perf's).
  void add(MetricDefinition metric);

  const std::vector<MetricDefinition>& metrics() const noexcept { return metrics_; }
  // The index of the metric of this name (case aside), if any.
  std::optional<std::size_t> find(std::string_view name) const;
  // The metrics of a comma-separated list of metric and group names, as perf stat -M takes it
  // ("ipc,TopdownL1"), each once, in the table's order within a group. Throws perfmon::Error
  // (InvalidArgument) for a name that is neither, with the nearest names.
  std::vector<std::size_t> select(std::string_view list) const;
  // Every group name, sorted.
  std::vector<std::string> groups() const;
  // The group of the top-down metrics of `level` (perf stat --topdown, --td-level), as perf's tables
  // name it: Intel's TopdownL<level>, AMD's PipelineL<level>; "" where the table has neither.
  std::string topdown_group(long level) const;

 private:
  std::vector<MetricDefinition> metrics_;
  std::unordered_map<std::string, std::size_t> index_;  // lower-cased name -> position
};

// One metric's value in a set's evaluation.
struct MetricResult {
  std::size_t metric = 0;  // its index in the table
  double value = 0;        // scaled by ScaleUnit; NaN where it cannot be computed
  double error = 0;        // the standard error, scaled alike
  // MetricThreshold: true where the value is past it (perf marks it), false where not, none where
  // the metric has no threshold or it cannot be computed.
  std::optional<bool> over_threshold;
};

// Whether a list of metric and group names (as select() takes it) names one of PAPI's presets or
// their group (PAPI..., without case).
bool names_papi_presets(std::string_view list);

class MetricSet {
 public:
  // Compiles the chosen metrics (table indices) and those their expressions refer to; the set
  // refers to `table`, which must outlive it. Throws
  // perfmon::Error (InvalidArgument): an expression that does not parse (named with its metric),
  // a metric that refers to itself (the cycle named).
  MetricSet(const MetricTable& table, std::vector<std::size_t> chosen, const MetricFacts& facts);

  // The events the chosen metrics need, in order of first use: perf's event names (and its tool
  // events duration_time, user_time, system_time), not metrics.
  const std::vector<std::string>& events() const noexcept { return events_; }
  // How many metrics were chosen, and the table index of the one at `position`.
  std::size_t size() const noexcept { return chosen_.size(); }
  std::size_t metric(std::size_t position) const { return compiled_[chosen_.at(position)].metric; }
  // The events (indices into events()) the chosen metric at `position` needs, directly or through
  // the metrics it refers to, in order of first use.
  const std::vector<std::size_t>& events_of(std::size_t position) const {
    return compiled_[chosen_.at(position)].events;
  }
  // The chosen metrics' values from the events' values and standard errors (errors empty: exact),
  // in the order they were chosen.
  std::vector<MetricResult> evaluate(std::span<const double> values, std::span<const double> errors = {}) const;

 private:
  struct Compiled {
    std::size_t metric = 0;
    MetricExpression expression;
    std::vector<std::size_t> inputs;  // for each of its names: a slot (events first, then metrics)
    std::optional<MetricExpression> threshold;
    std::vector<std::size_t> threshold_inputs;
    std::vector<std::size_t> events;  // events() it needs, through the metrics it names too
  };
  const MetricTable* table_;
  std::vector<std::size_t> chosen_;  // positions in compiled_
  std::vector<Compiled> compiled_;   // a metric after those it refers to
  std::vector<std::string> events_;
};

// Intel's topdown events (topdown-fe-bound, topdown-retiring...; Ice Lake on: the core PMU's
// PERF_METRICS) are counted by the kernel only in a group led by slots, as perf arranges them:
// the groups holding those events and slots, each a group of one, made one group, slots first.
// Other groups are left as they are, in their order. Whether a group needs slots added (topdown
// events without it): topdown_needs_slots.
std::vector<EventGroup> group_topdown_events(std::vector<EventGroup> groups);
bool topdown_needs_slots(const std::vector<EventGroup>& groups);

// How a metric set's events are grouped (perf stat's --metric-no-group), and the machine facts each
// MetricConstraint is read against.
struct MetricGrouping {
  bool no_group = false;      // every event counted alone
  bool nmi_watchdog = false;  // the NMI watchdog holds a counter: NO_GROUP_EVENTS_NMI, NO_THRESHOLD_AND_NMI apply
  bool smt_on = false;        // sibling threads share the core's counters: NO_GROUP_EVENTS_SMT applies
  // What one group may hold, asked (once) only where a group would hold events that take a counter;
  // unset or none: the kernel decides (a weak group it refuses is counted apart).
  std::function<std::optional<CounterBudget>()> budget;
};
// This machine's: /proc/sys/kernel/nmi_watchdog, sysfs' smt/active and counter_budget() (which
// tries the counters: only where asked).
MetricGrouping this_machine_grouping();

// Whether a metric's events are counted as one group under `rules`: its MetricConstraint read as
// perf reads it (NO_GROUP_EVENTS never; _NMI with the watchdog on; _SMT with SMT on; perfmon always
// tests thresholds, so NO_THRESHOLD_AND_NMI is _NMI).
bool groups_metric_events(const MetricDefinition& metric, const MetricGrouping& rules);

// The groups to count a metric set's events in, as perf stat -M arranges them: each chosen metric's
// events in one weak group (counted apart where the kernel refuses it whole), so that its ratios
// are of counts over the same time. Every event is counted once: a metric whose events are all in a
// group already reads them there, and groups that share an event are joined while the joined group
// fits `rules.budget` (else the metric's other events make a group of their own). A metric whose
// MetricConstraint says so (groups_metric_events) has its events alone; Intel's topdown events are
// in a group led by slots, added where the catalogue knows it. Events of `counted` (the groups
// counted anyway, by name) are read there, not added; tool events are not counted; an event the
// catalogue does not know is left out, in `unknown`.
struct MetricEventGroups {
  std::vector<EventGroup> groups;
  std::vector<std::pair<std::string, std::string>> unknown;  // (event, why: the catalogue's sentence)
};
MetricEventGroups metric_event_groups(const MetricTable& table, const MetricSet& set, const EventCatalog& catalog,
                                      const MetricGrouping& rules, const std::vector<EventGroup>& counted);

// perf's tool events, which metrics read (duration_time, user_time, system_time): they come from
// the run (its wall time, a command's CPU times, in seconds), not from a counter.
bool is_tool_event(std::string_view event);

// This CPU's id as perf writes it for its mapfile and strcmp_cpuid_str: "GenuineIntel-6-55-4"
// (vendor, family, model and stepping, the last two in hexadecimal) on x86, the MIDR
// "0x00000000410fd0c1" on arm64; "" where neither can be read. PERF_CPUID in the environment
// stands for it, as in perf (to see another CPU's metrics).
std::string this_cpu_id();

// This machine's answers to a metric's questions: #num_cpus, #num_cpus_online, #smt_on (sysfs);
// has_event: whether `catalog` knows the event and this machine can open it (probe.hpp); cpuid:
// this_cpu_id(). The answers refer to `catalog`, which must outlive their use (a MetricSet's
// construction, where they are asked).
MetricFacts this_machine_facts(const EventCatalog& catalog);

}  // namespace perfmon
