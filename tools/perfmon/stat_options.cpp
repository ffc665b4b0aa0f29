// SPDX-License-Identifier: Apache-2.0
#include "stat_options.hpp"

#include <algorithm>
#include <cctype>

#include "perfmon/control_channel.hpp"
#include "perfmon/error.hpp"
#include "perfmon/likwid_group.hpp"
#include "perfmon/metric_table.hpp"
#include "perfmon/workload.hpp"

namespace perfmon::cli {

namespace {

void split_sets(std::string_view text, std::vector<std::string>& sets) {
  while (true) {
    const std::size_t end = text.find(';');
    std::string_view part = text.substr(0, end);
    if (part.find_first_not_of(' ') == std::string_view::npos)
      throw UsageError(
          "--sets needs an event list for every set, separated by ';', like 'cycles,instructions;branches'");
    sets.emplace_back(part);
    if (end == std::string_view::npos) return;
    text.remove_prefix(end + 1);
  }
}

CacheGeometry parse_cache_option(std::string_view text, std::string_view option) {
  try {
    return parse_cache_geometry(text, option);
  } catch (const Error& error) {
    std::string message = error.what();
    if (message.ends_with('.')) message.pop_back();  // usage errors are printed with a hint after them
    throw UsageError(message);
  }
}

}  // namespace

std::vector<Option> stat_options(StatOptions& o) {
  std::vector<Option> options = o.events.options("event selector, perf syntax; repeatable (see 'perfmon list')");
  options.push_back(o.events.group_option('g'));
  for (Option& option : target_options(o.target, Measure::Count)) options.push_back(std::move(option));
  std::vector<Option> rest = {
      {'G', "cgroup", "name", "count only tasks of this cgroup (system-wide)",
       [&](std::string_view v) { o.target.cgroup = std::string(v); }},
      {'A', "no-aggr", "", "do not sum over CPUs: one row per CPU", [&](std::string_view) { o.no_aggr = true; }},
      {0, "per-socket", "", "a row per processor socket, its CPUs' counts summed (with -a, -C or -G)",
       [&](std::string_view) { o.per_place = StatBreakdown::PerSocket; }},
      {0, "per-die", "", "a row per die of each socket, its CPUs' counts summed",
       [&](std::string_view) { o.per_place = StatBreakdown::PerDie; }},
      {0, "per-core", "", "a row per core (its hardware threads' counts summed)",
       [&](std::string_view) { o.per_place = StatBreakdown::PerCore; }},
      {0, "per-node", "", "a row per NUMA node, its CPUs' counts summed",
       [&](std::string_view) { o.per_place = StatBreakdown::PerNode; }},
      {0, "per-thread", "", "with -p or -t: one row per thread", [&](std::string_view) { o.per_thread = true; }},
      {'I', "interval-print", "ms", "print the counts every <ms> milliseconds (at least 10)",
       [&](std::string_view v) { o.interval_ms = parse_long(v, "--interval-print", 10, 86'400'000); }},
      {0, "interval-count", "n", "with -I: stop after n intervals (perf's)",
       [&](std::string_view v) { o.interval_count = parse_long(v, "--interval-count", 1, 1L << 40); }},
      {0, "timeout", "ms",
       "stop after <ms> milliseconds (at least 10): a command gets SIGTERM, and the counts so far are printed",
       [&](std::string_view v) { o.timeout_ms = parse_long(v, "--timeout", 10, 86'400'000L * 365); }},
      {'q', "quiet", "", "print no counts (errors still): the exit status says how the command ended",
       [&](std::string_view) { o.quiet = true; }},
      {'n', "null", "", "count nothing: the command's time and resources alone (perf's null run)",
       [&](std::string_view) { o.null_run = true; }},
      {'d', "detailed", "",
       "add perf's detailed events: L1 data cache and last-level cache loads and misses; -dd also L1 instruction "
       "cache and TLBs; -ddd also L1 prefetches",
       [&](std::string_view) {
         if (++o.detail > 3) throw UsageError("-d goes up to -ddd (three levels of detail)");
       }},
      {'M', "metrics", "list",
       "metrics or groups of metrics to compute, as perf stat -M takes them (IPC,Default: perfmon list metrics); "
       "without -e, their events alone are counted",
       [&](std::string_view v) { o.metrics = std::string(v); }},
      {0, "topdown", "",
       "the top-down metrics of level 1 (this CPU's: TopdownL1 on Intel, PipelineL1 on AMD), from --metrics-dir's "
       "tables",
       [&](std::string_view) { o.topdown_level = std::max(o.topdown_level, 1L); }},
      {0, "likwid-group", "name",
       "compute one of likwid's performance groups (likwid-perfctr -g NAME: BRANCH, FLOPS_DP, L2CACHE...; perfmon "
       "list likwid-groups), read from the installed likwid; -g NAME says the same where NAME is such a group",
       [&](std::string_view v) { o.likwid_groups.emplace_back(v); }},
      {0, "td-level", "n", "with --topdown: the level of its metrics, 1 to 6 (default 1)",
       [&](std::string_view v) { o.topdown_level = parse_long(v, "--td-level", 1, 6); }},
      {0, "metric-only", "", "print the metrics alone (-M's, or perf's shadow figures), a column each, as perf does",
       [&](std::string_view) { o.metric_only = true; }},
      {0, "metric-no-group", "",
       "count each metric's events alone (multiplexed apart), not in a group of the metric's own, as perf does",
       [&](std::string_view) { o.metric_no_group = true; }},
      {0, "metrics-dir", "dir",
       "also the metrics of this CPU from perf's pmu-events laid out as in Linux's tools/perf/pmu-events/arch/ARCH "
       "(a mapfile.csv and a directory of JSON files per CPU)",
       [&](std::string_view v) { o.metrics_dir = std::string(v); }},
      {'S', "sync", "", "call sync(2) before counting: dirty pages written out, not counted against the command",
       [&](std::string_view) { o.sync_first = true; }},
      {0, "summary", "", "with -I: the whole run's counts after the intervals",
       [&](std::string_view) { o.summary = true; }},
      {0, "table", "", "with -r: each run's time elapsed and its distance from the mean, before the mean",
       [&](std::string_view) { o.run_table = true; }},
      {'B', "big-num", "", "group the digits of large counts (the table's default; accepted as perf takes it)",
       [](std::string_view) {}},
      {'r', "repeat", "n", "run the command n times and print the mean and its relative stddev",
       [&](std::string_view v) { o.repeat = parse_long(v, "--repeat", 1, 100'000); }},
      {'x', "field-separator", "sep", "print CSV with this separator (perf's field order)",
       [&](std::string_view v) { o.separator = std::string(v); }},
      {'j', "json-output", "", "print one JSON object per line (perf's keys)",
       [&](std::string_view) { o.json = true; }},
      {'o', "output", "file", "write the counts to a file (atomically) instead of standard error",
       [&](std::string_view v) { o.output = std::string(v); }},
      {'D', "delay", "ms",
       "count from <ms> milliseconds after the start; -1: only once 'enable' comes on the --control channel",
       [&](std::string_view v) { o.delay_ms = parse_long(v, "--delay", -1, 86'400'000); }},
      {0, "control", "fifo:ctl[,ack]",
       "turn counting on and off by commands on a FIFO (or fd:N[,M]): enable, disable, ping (perf's), and "
       "enable NAME / disable NAME to count named regions apart",
       [&](std::string_view v) { o.control = std::string(v); }},
      {0, "markers", "",
       "count the regions the program marks with perfmon::ProgramRegion or likwid's Marker API (linked with "
       "-lperfmon-likwid), per thread",
       [&](std::string_view) { o.markers = true; }},
      {'i', "no-inherit", "", "do not count threads and processes the command creates",
       [&](std::string_view) { o.inherit = false; }},
      {'v', "verbose", "", "say what is opened and when counting starts", [&](std::string_view) { o.verbose = true; }},
      {0, "strict", "", "refuse to multiplex: fail when the events do not fit on the counters at once",
       [&](std::string_view) { o.strict = true; }},
      {0, "calibrate", "",
       "first count an empty program (true): warn where starting and ending a program is over 5% of a count",
       [&](std::string_view) { o.calibrate = true; }},
      {0, "passes", "", "run the command once per pass of events that fit on the counters, and merge",
       [&](std::string_view) { o.passes = true; }},
      {0, "plan", "", "print the passes, groups and counters the events need, and run nothing",
       [&](std::string_view) { o.plan = true; }},
      {0, "sets", "lists",
       "event sets separated by ';', one on the PMU at a time, switched by perfmon (perfmon2 event sets)",
       [&](std::string_view v) { split_sets(v, o.sets); }},
      {0, "emulate", "",
       "run the command on QEMU's emulated CPU and count what it executes there, exactly, without a PMU "
       "(docs/emulated.md)",
       [&](std::string_view) { o.emulate = true; }},
      {0, "I1", "size,assoc,line",
       "with --emulate: the modelled L1 instruction cache (cachegrind's form: 32768,8,64); default: the host's",
       [&](std::string_view v) { o.caches.l1i = parse_cache_option(v, "--I1"); }},
      {0, "D1", "size,assoc,line", "with --emulate: the modelled L1 data cache; default: the host's",
       [&](std::string_view v) { o.caches.l1d = parse_cache_option(v, "--D1"); }},
      {0, "LL", "size,assoc,line", "with --emulate: the modelled last-level cache; default: the host's",
       [&](std::string_view v) { o.caches.ll = parse_cache_option(v, "--LL"); }},
      {0, "switch", "when",
       "with --sets: after a time on the PMU (10ms, 500us; default 10ms) or after N events of one "
       "(instructions:1000000)",
       [&](std::string_view v) { o.switching = std::string(v); }},
  };
  for (Option& option : rest) options.push_back(std::move(option));
  return options;
}

std::optional<std::chrono::nanoseconds> parse_duration(std::string_view text) {
  std::size_t digits = 0;
  while (digits < text.size() && std::isdigit(static_cast<unsigned char>(text[digits]))) ++digits;
  if (digits == 0 || digits > 12) return std::nullopt;
  const long long value = std::stoll(std::string(text.substr(0, digits)));
  const std::string_view unit = text.substr(digits);
  long long scale = 0;
  if (unit.empty() || unit == "ms") scale = 1'000'000;
  if (unit == "us") scale = 1'000;
  if (unit == "ns") scale = 1;
  if (unit == "s") scale = 1'000'000'000;
  if (scale == 0 || value == 0) return std::nullopt;
  return std::chrono::nanoseconds(value * scale);
}

SetSwitching parse_switch(const std::optional<std::string>& text) {
  SetSwitching rule;
  rule.timeout = std::chrono::milliseconds(10);
  if (!text) return rule;
  if (std::optional<std::chrono::nanoseconds> timeout = parse_duration(*text)) {
    rule.timeout = *timeout;
    return rule;
  }
  const std::size_t colon = text->rfind(':');
  const std::string period = colon == std::string::npos ? "" : text->substr(colon + 1);
  if (colon == 0 || period.empty() || period.size() > 18 ||
      period.find_first_not_of("0123456789") != std::string::npos || std::stoull(period) == 0)
    throw UsageError(
        "--switch takes a time on the PMU (10ms, 500us, 1s) or an event and a count (instructions:1000000), not '" +
        *text + "'");
  rule.timeout = std::chrono::nanoseconds(0);
  rule.trigger = text->substr(0, colon);
  rule.period = std::stoull(period);
  return rule;
}

std::vector<std::string> with_likwid_group(std::span<char* const> args) {
  std::vector<std::string> words(args.begin(), args.end());
  for (std::size_t i = 0; i + 1 < words.size() && words[i] != "--"; ++i) {
    if (words[i] != "-g") continue;
    const std::string& word = words[i + 1];
    if (word.empty() || word.find('/') != std::string::npos || find_program(word)) continue;
    const std::vector<std::string> groups = likwid_group_names("", likwid_arch(this_cpu_id()));
    if (std::find(groups.begin(), groups.end(), word) == groups.end()) continue;
    words[i] = "--likwid-group=" + word;
    words.erase(words.begin() + static_cast<std::ptrdiff_t>(i) + 1);
  }
  return words;
}

void validate(const StatOptions& o) {
  const TargetChoice& t = o.target;
  const int targets = targets_given(t);
  if (targets > 1) throw UsageError("choose one target: -p, -t, or -a/-C");
  if (!t.cgroup.empty() && (!t.pids.empty() || !t.tids.empty()))
    throw UsageError("-G counts a cgroup system-wide; it cannot be combined with -p or -t");
  if (o.command.empty() && targets == 0 && t.cgroup.empty() && !o.plan)
    throw UsageError("nothing to count: give a command, or a target with -p, -t, -a, -C or -G");
  if (!o.likwid_groups.empty() && (!o.metrics.empty() || o.topdown_level != 0))
    throw UsageError(
        "a likwid group (-g NAME, --likwid-group) computes its own metrics: give it without -M or --topdown");
  if (o.likwid_groups.size() > 1 && !o.markers)
    throw UsageError(
        "several likwid groups are counted one at a time in marked regions, switched by the program "
        "(LIKWID_MARKER_SWITCH): give them with --markers, or give one group");
  if (!o.command.empty() && (!t.pids.empty() || !t.tids.empty()))
    throw UsageError("-p and -t attach to running processes; they cannot be combined with a command");
  if (o.separator && o.json) throw UsageError("-x (CSV) and -j (JSON) exclude each other");
  if (o.separator && o.separator->empty()) throw UsageError("-x needs a separator, like -x,");
  const bool per_cpu_rows = o.no_aggr || o.per_place != StatBreakdown::Total;
  if (o.repeat > 1 && (o.interval_ms > 0 || o.per_thread || per_cpu_rows))
    throw UsageError("-r cannot be combined with -I, --per-thread, -A or --per-socket|die|core|node");
  if (o.repeat > 1 && o.command.empty()) throw UsageError("-r repeats a command; give one");
  if (!o.sets.empty() && (!o.events.lists.empty() || o.detail > 0))
    throw UsageError("--sets names all the events: give them there, not with -e or -d");
  if (o.null_run && o.detail > 0) throw UsageError("-n counts nothing: leave out -d");
  if (!o.metrics_dir.empty() && o.metrics.empty() && o.topdown_level == 0)
    throw UsageError("--metrics-dir adds the metrics -M and --topdown choose from: give one of them too");
  if ((!o.metrics.empty() || o.topdown_level != 0) && (o.null_run || !o.sets.empty()))
    throw UsageError("-M and --topdown compute metrics of one measurement's counts: give them without -n or --sets");
  if (o.summary && o.interval_ms == 0)
    throw UsageError("--summary adds the whole run's counts to -I's intervals: give -I");
  if (o.run_table && o.repeat < 2) throw UsageError("--table lists the runs of -r N: give -r with N of 2 or more");
  if (!o.sets.empty() && (o.interval_ms > 0 || o.per_thread || per_cpu_rows))
    throw UsageError("--sets cannot be combined with -I, --per-thread, -A or --per-socket|die|core|node");
  if (o.passes && (o.command.empty() || o.repeat > 1 || o.interval_ms > 0 || !o.sets.empty() || per_cpu_rows))
    throw UsageError(
        "--passes runs a command once per pass: give one, without -r, -I, -A, --per-socket|die|core|node or --sets");
  if (o.calibrate &&
      (o.command.empty() || !o.sets.empty() || o.passes || per_cpu_rows || o.per_thread || o.interval_ms > 0))
    throw UsageError(
        "--calibrate compares a command's counts with an empty program's: give a command, without --sets, "
        "--passes, -I or per-location rows");
  if (o.plan && (!o.command.empty() || targets > 0 || !t.cgroup.empty() || o.repeat > 1 || o.interval_ms > 0 ||
                 per_cpu_rows || o.per_thread || o.calibrate || o.passes || !o.output.empty()))
    throw UsageError(
        "--plan prints the passes the events need and runs nothing: give it events alone, without a command, a "
        "target, -r, -I, -A, --per-thread, --calibrate, --passes or -o");
  if (o.emulate && (o.command.empty() || targets > 0 || !t.cgroup.empty()))
    throw UsageError("--emulate runs a command on the emulated CPU: give one, without -p, -t, -a, -C or -G");
  if (o.emulate && o.events.only_ring == 'k')
    throw UsageError("--emulate runs user mode only: --all-kernel has nothing to count there");
  if (o.emulate && (!o.sets.empty() || o.passes || o.plan || !o.inherit || o.strict))
    throw UsageError(
        "--emulate counts the whole command, every event all the time: it cannot be combined with --sets, --passes, "
        "--plan, --strict or -i");
  const CacheHierarchy& caches = o.caches;
  if (!o.emulate && (caches.l1i.size != 0 || caches.l1d.size != 0 || caches.ll.size != 0))
    throw UsageError("--I1, --D1 and --LL shape the emulated CPU's caches: use them with --emulate");
  if (o.plan && !o.sets.empty()) throw UsageError("--plan plans the events of -e, not --sets");
  if (o.strict && !o.sets.empty())
    throw UsageError("--strict and --sets exclude each other: sets take turns on the counters by design");
  if (o.switching && o.sets.empty()) throw UsageError("--switch says when event sets switch: give them with --sets");
  if ((o.delay_ms != 0 || !o.control.empty()) &&
      (!o.sets.empty() || o.passes || o.emulate || o.repeat > 1 || o.calibrate))
    throw UsageError(
        "-D and --control turn the counting of the events of -e on and off during one run: they cannot be combined "
        "with --sets, --passes, --emulate, -r or --calibrate");
  // What it refuses is a usage error (129), said against the option.
  if (!o.control.empty()) try {
      parse_control_spec(o.control);
    } catch (const Error& error) {
      const std::string_view said = error.what();
      throw UsageError("--control: " + std::string(said.substr(0, said.find_last_not_of('.') + 1)));
    }
  if (o.markers && (o.command.empty() || !o.sets.empty() || o.passes || o.repeat > 1 || o.calibrate))
    throw UsageError(
        "--markers counts the regions a command marks: give one, without --sets, --passes, -r or --calibrate");
  if (o.null_run && (o.command.empty() || !o.events.lists.empty() || !o.sets.empty() || o.passes || o.plan ||
                     o.emulate || o.interval_ms > 0 || o.markers || o.calibrate))
    throw UsageError(
        "-n times a command and counts nothing: give a command, without -e, --sets, --passes, --plan, --emulate, -I, "
        "--markers or --calibrate");
  if (o.interval_count != 0 && o.interval_ms == 0)
    throw UsageError("--interval-count stops after that many intervals of -I: give -I too");
  if (o.timeout_ms != 0 && (o.repeat > 1 || o.passes || o.calibrate))
    throw UsageError("--timeout stops one run: it cannot be combined with -r, --passes or --calibrate");
  if (o.delay_ms < 0 && o.control.empty())
    throw UsageError("-D -1 starts with counting off: give --control, whose 'enable' turns it on");
  parse_switch(o.switching);
  if (o.per_thread && t.pids.empty() && t.tids.empty())
    throw UsageError(
        "--per-thread counts each thread of a running process: use it with -p or -t "
        "(a command's later threads are counted with inherit, in one total)");
  if (o.no_aggr && o.per_place != StatBreakdown::Total)
    throw UsageError("-A gives a row per CPU, --per-socket|die|core|node a row per place: choose one");
  if (o.per_place != StatBreakdown::Total && !t.all_cpus && !t.cpus && t.cgroup.empty())
    throw UsageError(
        "--per-socket, --per-die, --per-core and --per-node sum CPUs' counts by place; they need -a, -C or -G");
  if (o.no_aggr && !t.all_cpus && !t.cpus && t.cgroup.empty())
    throw UsageError("-A prints one row per CPU; it needs -a, -C or -G");
}

}  // namespace perfmon::cli
