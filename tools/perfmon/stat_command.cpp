// SPDX-License-Identifier: Apache-2.0
// perfmon stat: count events while a command runs, or on processes, threads, CPUs or a cgroup.
#include <signal.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <deque>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "commands.hpp"
#include "errors.hpp"
#include "event_arguments.hpp"
#include "options.hpp"
#include "output.hpp"
#include "perfmon/catalog.hpp"
#include "perfmon/emulated.hpp"
#include "perfmon/error.hpp"
#include "perfmon/event_sets.hpp"
#include "perfmon/likwid_group.hpp"
#include "perfmon/measurement.hpp"
#include "perfmon/metric_table.hpp"
#include "perfmon/pass_plan.hpp"
#include "perfmon/probe.hpp"
#include "perfmon/session.hpp"
#include "perfmon/stat.hpp"
#include "perfmon/stat_output.hpp"
#include "perfmon/target.hpp"
#include "perfmon/workload.hpp"
#include "stat_control.hpp"
#include "stat_markers.hpp"
#include "stat_options.hpp"
#include "targets.hpp"
#include "waited_signals.hpp"

namespace perfmon::cli {

namespace {

constexpr const char* kDefaultEvents =
    "task-clock,context-switches,cpu-migrations,page-faults,cycles,instructions,branches,branch-misses";
// What a program's marker regions count where -e names nothing: what every machine can.
constexpr const char* kDefaultMarkerEvents = "task-clock,context-switches,page-faults";
// What the emulated CPU counts.
constexpr const char* kDefaultEmulatedEvents = "instructions,branches,branch-misses";
// perf stat's -d, -dd and -ddd: the cache and TLB events each level adds to the others.
constexpr const char* kDetailedEvents[] = {
    "L1-dcache-loads,L1-dcache-load-misses,LLC-loads,LLC-load-misses",
    "L1-icache-loads,L1-icache-load-misses,dTLB-loads,dTLB-load-misses,iTLB-loads,iTLB-load-misses",
    "L1-dcache-prefetches,L1-dcache-prefetch-misses",
};
// Without -I, the counters are read this often: each read is a slice of a multiplexed count's rate.
constexpr long kSliceMs = 100;
constexpr const char* kSynopsis = "perfmon stat [<options>] [--] [<command> [<args>]]";

double now_ns() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<double>(ts.tv_sec) * 1e9 + static_cast<double>(ts.tv_nsec);
}

std::string describe_target(const StatOptions& o) {
  if (!o.command.empty()) {
    std::string text;
    for (const std::string& word : o.command) text += (text.empty() ? "" : " ") + word;
    return "'" + printable(text) + "'";
  }
  auto ids = [](const std::vector<pid_t>& list) {
    std::string text;
    for (pid_t id : list) text += (text.empty() ? "" : ",") + std::to_string(id);
    return text;
  };
  if (!o.target.pids.empty()) return "process id '" + ids(o.target.pids) + "'";
  if (!o.target.tids.empty()) return "thread id '" + ids(o.target.tids) + "'";
  if (o.target.cpus) return "'CPU(s) " + format_cpu_list(*o.target.cpus) + "'";
  return "'system wide'";
}

// One run's figures, and whether a signal ended it.
struct Run {
  StatRun figures;
  std::optional<WorkloadExit> exit;
  bool interrupted = false;
  std::vector<std::string> footnotes;
};

// stat's part in a run: the control channel and delay, every tick's read (and interval line), and
// the end --timeout or --interval-count asks for (SIGTERM to a command, as perf sends it).
class StatHooks final : public RunHooks {
 public:
  using Clock = std::chrono::steady_clock;
  StatHooks(StatControl& control, Measurement& measurement, std::function<void(double)> on_tick)
      : control_(control), measurement_(measurement), on_tick_(std::move(on_tick)) {}
  void started() override {
    control_.started();
    if (verbose && !control_.starts_paused())
      std::fprintf(stderr, "perfmon: counting started%s\n", measurement_.counting_on().c_str());
    if (timeout_ms > 0) stop_at_ = Clock::now() + std::chrono::milliseconds(timeout_ms);
  }
  void tick(std::chrono::nanoseconds since_last) override {
    if (interval_count > 0 && ticks_ == interval_count) return;  // the last was printed
    on_tick_(static_cast<double>(since_last.count()));
    if (++ticks_ == interval_count) stop_at_ = Clock::now();
  }
  void act() override { control_.act(measurement_); }
  std::optional<Clock::time_point> deadline() const override {
    std::optional<Clock::time_point> at = control_.deadline();
    if (stop_at_ && !stopped_) at = at ? std::min(*at, *stop_at_) : *stop_at_;
    return at;
  }
  int signal_number() const noexcept override { return control_.signal_number(); }
  int interruption() override {
    if (!stop_at_ || stopped_ || Clock::now() < *stop_at_) return 0;
    stopped_ = true;
    return SIGTERM;
  }

  bool verbose = false;
  long timeout_ms = 0, interval_count = 0;

 private:
  StatControl& control_;
  Measurement& measurement_;
  std::function<void(double)> on_tick_;
  std::optional<Clock::time_point> stop_at_;
  bool stopped_ = false;
  long ticks_ = 0;
};

class StatCommand {
 public:
  explicit StatCommand(StatOptions& options) : o_(options) {}

  int execute() {
    EventCatalog catalog;
    try {
      // -M, --topdown or -g without -e or -d: the metrics' events alone, as perf counts them.
      const bool metrics_alone = (!o_.metrics.empty() || o_.topdown_level != 0 || !o_.likwid_groups.empty()) &&
                                 o_.events.lists.empty() && o_.detail == 0;
      if (o_.null_run || metrics_alone)
        groups_.clear();  // a null run: the command's time and usage alone
      else if (o_.sets.empty())
        groups_ = !o_.events.lists.empty() ? o_.events.parse(catalog)
                  : o_.emulate             ? catalog.parse(kDefaultEmulatedEvents)
                                           : catalog.parse(kDefaultEvents);
      else
        set_definitions_ = event_sets_of(catalog, o_.sets, parse_switch(o_.switching));
      for (long level = 0; level < o_.detail && !o_.null_run && o_.sets.empty(); ++level)
        for (EventGroup& group : catalog.parse(kDetailedEvents[level])) groups_.push_back(std::move(group));
      if (!o_.metrics.empty() || o_.topdown_level != 0 || !o_.likwid_groups.empty())
        add_metric_events(catalog);
      else if (o_.events.lists.empty() && o_.sets.empty() && !o_.emulate && !o_.null_run)
        add_default_topdown(catalog);
      o_.events.group_all(groups_);
      o_.events.restrict_rings(groups_);
      for (EventSetDefinition& set : set_definitions_) o_.events.restrict_rings(set.groups);
    } catch (const Error& error) {
      return report_event_error("stat", error);
    }
    if (o_.plan || o_.passes) {
      std::optional<CounterBudget> budget = counter_budget();
      try {
        // Where the CPU does not say how many counters it has, events that need none (software
        // events, tracepoints) still plan; the planner refuses any that needs one.
        plan_ = plan_passes(groups_, budget.value_or(CounterBudget{0, {}, "the CPU does not say"}));
      } catch (const Error& error) {
        if (budget) return report_error("stat", error, 1);
        const std::vector<PmuSummary> pmus = catalog.pmus();
        if (std::none_of(pmus.begin(), pmus.end(), [](const PmuSummary& pmu) { return pmu.core; })) {
          const std::string why = probe_event(catalog.resolve("cycles").attr);
          return report_error("stat",
                              Error(ErrorKind::Unsupported,
                                    "there is no hardware PMU here to plan passes for (" +
                                        why.substr(0, why.find_last_not_of(". ") + 1) +
                                        "); software events and tracepoints need no counters.",
                                    ENODEV),
                              1);
        }
        return report_error("stat",
                            Error(ErrorKind::Limit,
                                  "cannot tell how many counters this CPU has (no CPUID leaf, no PMU driver line in "
                                  "the kernel log): plan with the kernel log readable (as root).",
                                  ENODEV),
                            1);
      }
      if (o_.plan) {
        std::fputs(describe_plan(plan_, groups_).c_str(), stdout);
        return 0;
      }
    }
    if (o_.sync_first) ::sync();
    OutputFile out(o_.output, stderr);
    format_ = o_.json ? StatFormat::Json : o_.separator ? StatFormat::Csv : StatFormat::Table;
    separator_ = o_.separator.value_or(",");
    std::vector<Run> runs;
    int status = 0;
    if (o_.passes) {
      runs.push_back(run_passes(out));
      if (runs.back().exit) status = runs.back().exit->exit_code();
    }
    // The marker library counts -e's lists and the events -M's metrics added, in groups_' order;
    // likwid's groups without -e by their names, as likwid-perfctr gives them (so that the program's
    // own perfmon_getGroupName and its kin see them), a group each.
    std::vector<std::vector<std::string>> marker_groups(1, o_.events.lists);
    std::vector<EventGroup> marker_known = groups_;  // every group's events, by name: their units and scales
    for (std::size_t m = 0; m < metrics_.size(); ++m) {
      if (m > 0) {
        marker_groups.emplace_back();
        marker_known.insert(marker_known.end(), metrics_[m].counted.begin(), metrics_[m].counted.end());
      }
      if (m < o_.likwid_groups.size() && o_.events.lists.empty())
        marker_groups.back() = {o_.likwid_groups[m]};
      else
        marker_groups.back().insert(marker_groups.back().end(), metrics_[m].lists.begin(), metrics_[m].lists.end());
    }
    if (marker_groups.front().empty()) marker_groups.front() = {kDefaultMarkerEvents};
    StatMarkers markers(o_.markers, marker_groups);
    std::optional<Run> floor;
    if (o_.calibrate) floor = run_once(out, groups_, {"true"});
    for (long i = 0; i < o_.repeat && !o_.passes; ++i) {
      Run run = run_once(out, groups_, o_.command);
      if (run.exit) status = run.exit->exit_code();
      bool stop = run.interrupted;
      runs.push_back(std::move(run));
      if (stop) break;
    }
    if (floor) {
      std::vector<std::string> warnings = small_count_warnings(floor->figures.rows, runs.back().figures.rows);
      runs.back().footnotes.insert(runs.back().footnotes.end(), warnings.begin(), warnings.end());
    }
    if ((o_.interval_ms == 0 || o_.summary) && !o_.quiet) {
      std::vector<StatRun> figures;
      for (const Run& run : runs) figures.push_back(run.figures);
      StatReport report = summarise_runs(figures, describe_target(o_), runs.back().footnotes);
      report.run_table = o_.run_table;
      report.metric_only = o_.metric_only;
      if (!metrics_.empty()) {
        add_chosen_metrics(report.rows, report.elapsed_ns, report.user_s, report.sys_s, 0);
        report.footnotes.insert(report.footnotes.end(), metric_notes_.begin(), metric_notes_.end());
        metric_notes_.clear();
      }
      out.write(format_stat_report(report, format_, separator_));
    }
    std::vector<std::string> marker_notes;
    for (auto& [group, region] : markers.reports(marker_known, marker_notes)) {
      if (group < metrics_.size()) {
        add_chosen_metrics(region.rows, 0, std::nullopt, std::nullopt, group);
        // likwid's least, most and mean of each event mix threads: no metric of theirs is shown.
        auto mixed = [](const StatRow& row) {
          return row.prefix == "min" || row.prefix == "max" || row.prefix == "mean";
        };
        std::erase_if(region.rows, [&](const StatRow& row) { return row.metric_only && mixed(row); });
        for (StatRow& row : region.rows)
          if (mixed(row)) {
            row.metric.reset();
            row.metric_unit.clear();
            row.metric_error.reset();
            row.metric_over_threshold.reset();
          }
        region.footnotes.insert(region.footnotes.end(), metric_notes_.begin(), metric_notes_.end());
        metric_notes_.clear();
      }
      if (!o_.quiet) out.write(format_stat_report(region, format_, separator_));
    }
    for (const std::string& note : marker_notes) std::fprintf(stderr, "perfmon stat: %s\n", note.c_str());
    commit(out);
    // -I without the summary: each metric that had no value, said once at the end.
    for (const std::string& note : metric_notes_) std::fprintf(stderr, "perfmon stat: %s\n", note.c_str());
    // Table output carries its footnotes; CSV and JSON stay machine-readable, so the notes go to
    // standard error only when the data went to a file.
    if (format_ != StatFormat::Table && out.is_file())
      for (const std::string& note : runs.back().footnotes) std::fprintf(stderr, "%s\n", note.c_str());
    return status;
  }

 private:
  // One interval's rows, with their metrics, stamped with the time since `start`.
  void print_interval(OutputFile& out, std::vector<StatRow> rows, double interval_ns, double start,
                      bool& header_printed) {
    compute_metrics(rows, interval_ns);
    if (!metrics_.empty()) add_chosen_metrics(rows, interval_ns, std::nullopt, std::nullopt, 0);
    out.write(
        format_stat_interval(rows, (now_ns() - start) / 1e9, format_, separator_, !header_printed, o_.metric_only));
    header_printed = true;
  }

  // The measurement perfmon stat's options ask for.
  std::unique_ptr<Measurement> make_measurement(const std::vector<EventGroup>& groups,
                                                const std::vector<std::string>& command) const {
    MeasurementRequest request;
    request.groups = groups;
    request.sets = set_definitions_;
    request.command = command;
    request.target = o_.target;
    request.emulate = o_.emulate;
    request.inherit = o_.inherit;
    request.strict = o_.strict || o_.passes;
    request.caches = o_.caches;
    request.start_paused = o_.delay_ms != 0;
    return measure(request);
  }

  // One run: the measurement opened, started with the command, read every interval (each read a
  // slice of a multiplexed count's rate; with -I, each interval's counts printed) until the command
  // ends, then read once more. A pass of --passes labels its rows "passN".
  Run run_once(OutputFile& out, const std::vector<EventGroup>& groups, const std::vector<std::string>& command,
               std::optional<std::size_t> pass = std::nullopt) {
    Run run;
    std::unique_ptr<Measurement> measurement = make_measurement(groups, command);
    const Reading opened = measurement->reading();
    const bool cpu_locations = !opened.locations.empty() && opened.locations.front().cpu >= 0;
    const StatBreakdown breakdown = o_.per_place != StatBreakdown::Total && cpu_locations ? o_.per_place
                                    : (o_.per_thread && !cpu_locations) || (o_.no_aggr && cpu_locations)
                                        ? StatBreakdown::PerLocation
                                        : StatBreakdown::Total;
    // Thread names now, while the threads exist, for per-location rows (only they show them).
    const std::vector<std::string> labels =
        breakdown == StatBreakdown::PerLocation ? location_labels(opened.locations) : std::vector<std::string>{};
    if (o_.verbose)
      for (const ReadingEvent& event : opened.events) verbose_event(event.event, event.supported);
    StatControl control(o_.delay_ms, o_.control, o_.verbose);
    const double start = now_ns();
    std::vector<CounterValue> previous;
    bool header_printed = false;
    StatHooks hooks(control, *measurement, [&](double interval_ns) {
      measurement->read();
      if (o_.interval_ms == 0 || command != o_.command || o_.quiet) return;
      print_interval(out, stat_interval_rows(control.reading(*measurement), previous, breakdown, labels), interval_ns,
                     start, header_printed);
    });
    hooks.verbose = o_.verbose;
    if (command == o_.command) {  // the run itself, not --calibrate's of true
      hooks.timeout_ms = o_.timeout_ms;
      hooks.interval_count = o_.interval_count;
    }
    RunOptions options;
    options.tick = std::chrono::milliseconds(o_.interval_ms > 0 ? o_.interval_ms : kSliceMs);
    RunResult result = perfmon::run(*measurement, hooks, options);
    run.exit = result.exit;
    run.interrupted = result.interrupted;
    run.figures.elapsed_ns = static_cast<double>(result.elapsed.count());
    if (measurement->command() && run.exit) run.figures.usage = run.exit->usage;
    Reading reading = control.reading(*measurement);
    // As perf stat -v: each event's raw count, enabled and running time, before any scaling.
    if (o_.verbose)
      for (const ReadingEvent& event : reading.events)
        std::fprintf(stderr, "perfmon: %s%s%s: %llu %llu %llu\n", event.label.c_str(), event.label.empty() ? "" : " ",
                     printable(event.event.name).c_str(), static_cast<unsigned long long>(event.value.raw),
                     static_cast<unsigned long long>(event.value.enabled),
                     static_cast<unsigned long long>(event.value.running));
    if (pass) PassRuns::label(reading, *pass);
    run.figures.rows = stat_rows(reading, breakdown, labels);
    run.footnotes = stat_footnotes(reading);
    for (std::string& line : control.footnotes()) run.footnotes.push_back(std::move(line));
    // Only where one measurement could count on the emulated CPU instead.
    if (!reading.emulated && o_.sets.empty())
      if (std::string hint = emulate_hint(run.figures.rows, command); !hint.empty()) run.footnotes.push_back(hint);
    if (o_.strict || o_.passes)  // both pin every group
      for (const StatRow& row : run.figures.rows)
        if (row.state == StatRow::State::NotScheduled)
          throw Error(ErrorKind::Limit,
                      "strict mode: the kernel could not keep '" + row.event +
                          "' on the PMU all the time (another measurement, or the NMI watchdog, holds counters): "
                          "free them, or count fewer events.",
                      EBUSY);
    return run;
  }

  // Where the CPU's counters cannot count a command's instructions, branches or cache misses, the
  // emulated CPU can: one line saying so, if it is installed.
  static std::string emulate_hint(const std::vector<StatRow>& rows, const std::vector<std::string>& command) {
    const bool hardware_unsupported = std::any_of(rows.begin(), rows.end(), [](const StatRow& row) {
      return row.state == StatRow::State::NotSupported &&
             (row.type == PERF_TYPE_HARDWARE || row.type == PERF_TYPE_HW_CACHE);
    });
    if (command.empty() || !hardware_unsupported) return "";
    static const bool emulator_available = emulator_info().available;  // asked once, not per -r run
    if (!emulator_available) return "";
    return "perfmon stat --emulate counts the command's instructions, branches and cache misses exactly on QEMU's "
           "emulated CPU, without a PMU (docs/emulated.md).";
  }

  // --passes: the command once per pass, each pass's rows prefixed "passN"; the events counted in
  // every pass show how alike the runs were. A pass none of whose own events can be counted here
  // is not run (the first is, where none can, for the events of every pass): its rows say why.
  Run run_passes(OutputFile& out) {
    const PassRuns passes(plan_, groups_);
    Run merged;
    double elapsed = 0;
    std::size_t run_count = 0;
    auto take_footnotes = [&merged](const std::vector<std::string>& lines) {
      for (const std::string& line : lines)
        if (std::find(merged.footnotes.begin(), merged.footnotes.end(), line) == merged.footnotes.end())
          merged.footnotes.push_back(line);
    };
    for (std::size_t p = 0; p < passes.count(); ++p) {
      if (!passes.runs(p)) {
        // Its own events, each with the reason it cannot be counted.
        const Reading not_run = passes.not_run(p);
        for (StatRow& row : stat_rows(not_run)) merged.figures.rows.push_back(std::move(row));
        take_footnotes(stat_footnotes(not_run));
        continue;
      }
      Run run = run_once(out, passes.groups_of(p), o_.command, p);
      ++run_count;
      for (StatRow& row : run.figures.rows) merged.figures.rows.push_back(std::move(row));
      elapsed += run.figures.elapsed_ns;
      merged.exit = run.exit;
      merged.figures.usage = run.figures.usage;
      take_footnotes(run.footnotes);
      if (run.interrupted) {
        merged.interrupted = true;
        break;
      }
    }
    const std::size_t count = passes.count();
    merged.figures.elapsed_ns = elapsed;
    merged.footnotes.push_back(std::to_string(count) + (count == 1 ? " pass" : " passes") +
                               ", every event counted all the time of its pass; time elapsed is their sum" +
                               (run_count == count ? "." : " (" + std::to_string(run_count) + " run)."));
    if (const std::size_t not_run = passes.not_run_count(); not_run != 0)
      merged.footnotes.push_back(passes.not_run_names() + " not run: none of " + (not_run == 1 ? "its" : "their") +
                                 " events can be counted here.");
    for (const std::string& line : pass_spread_lines(merged.figures.rows)) merged.footnotes.push_back(line);
    return merged;
  }

  static void verbose_event(const Event& event, bool supported) {
    std::fprintf(stderr, "perfmon: %s: type %u config 0x%llx%s\n", event.name.c_str(), event.attr.type,
                 static_cast<unsigned long long>(event.attr.config), supported ? "" : " (not supported)");
  }

  StatOptions& o_;
  // -M: the metrics' events added to what is counted (without -e, the metrics' events alone, as
  // perf counts them); perf's tool events come from the run, not from a counter.
  void add_metric_events(const EventCatalog& catalog) {
    // likwid's groups: their metrics alone, over the events their counters name.
    const std::string arch = o_.likwid_groups.empty() ? "" : likwid_arch(this_cpu_id());
    for (const std::string& name : o_.likwid_groups) {
      ChosenMetrics& group = metrics_.emplace_back();
      group.table = likwid_group_metrics(read_likwid_group("", arch, name));
      std::vector<std::size_t> every(group.table.metrics().size());
      for (std::size_t i = 0; i < every.size(); ++i) every[i] = i;
      group.set.emplace(group.table, std::move(every), this_machine_facts(catalog));
    }
    if (metrics_.empty()) choose_metrics(catalog);
    add_events_of_metrics(catalog);
  }

  // perf stat's default output where the core PMU has Intel's topdown metrics (Ice Lake on): this
  // CPU's Default metrics (top-down level 1; level 2 too on Sapphire Rapids and its successors)
  // beside the default events. Elsewhere nothing is read (a look at sysfs).
  void add_default_topdown(const EventCatalog& catalog) {
    std::error_code ignored;
    if (!std::filesystem::exists("/sys/bus/event_source/devices/cpu/events/topdown-retiring", ignored) &&
        !std::filesystem::exists("/sys/bus/event_source/devices/cpu_core/events/topdown-retiring", ignored))
      return;
    MetricTable table = MetricTable::shipped(this_cpu_id());
    std::vector<std::size_t> chosen;
    for (std::size_t m = 0; m < table.metrics().size(); ++m) {
      const std::vector<std::string>& groups = table.metrics()[m].groups;
      if (std::find(groups.begin(), groups.end(), "Default") != groups.end()) chosen.push_back(m);
    }
    if (chosen.empty()) return;
    ChosenMetrics& defaults = metrics_.emplace_back();
    defaults.table = std::move(table);
    defaults.set.emplace(defaults.table, std::move(chosen), this_machine_facts(catalog));
    add_events_of_metrics(catalog);
  }

  void choose_metrics(const EventCatalog& catalog) {
    ChosenMetrics& chosen_metrics = metrics_.emplace_back();
    MetricTable& table = chosen_metrics.table;
    table = MetricTable::for_this_machine(o_.metrics_dir, names_papi_presets(o_.metrics));
    std::string chosen = o_.metrics;
    if (o_.topdown_level != 0) {
      const std::string level = std::to_string(o_.topdown_level);
      const std::string group = table.topdown_group(o_.topdown_level);
      if (group.empty())
        throw Error(ErrorKind::InvalidArgument,
                    "--topdown needs this CPU's top-down metrics of level " + level +
                        (o_.metrics_dir.empty()
                             ? ", which perfmon's tables do not have for this CPU (" +
                                   (this_cpu_id().empty() ? std::string("whose id cannot be read") : this_cpu_id()) +
                                   "): give --metrics-dir with perf's pmu-events for this architecture (Intel's "
                                   "groups TopdownL1..., AMD's PipelineL1...)"
                             : ", which " + o_.metrics_dir + " does not have for this CPU (no group TopdownL" + level +
                                   " or PipelineL" + level + ")") +
                        ".");
      chosen += (chosen.empty() ? "" : ",") + group;
    }
    chosen_metrics.set.emplace(table, table.select(chosen), this_machine_facts(catalog));
  }

  // The metrics' events in groups as perf arranges them (metric_event_groups), each counted once:
  // the first set's added to what is counted; the others' (further likwid groups) apart, for the
  // marked regions.
  void add_events_of_metrics(const EventCatalog& catalog) {
    MetricGrouping rules = this_machine_grouping();
    rules.no_group = o_.metric_no_group;
    for (std::size_t m = 0; m < metrics_.size(); ++m) {
      ChosenMetrics& chosen = metrics_[m];
      MetricEventGroups added =
          metric_event_groups(chosen.table, *chosen.set, catalog, rules, m == 0 ? groups_ : std::vector<EventGroup>());
      for (const auto& [event, why] : added.unknown)
        metric_notes_.push_back("A metric's event is not known here: " + why);
      for (EventGroup& group : added.groups) {
        std::string text;
        for (const Event& event : group.events) text += (text.empty() ? "" : ",") + event.name;
        chosen.lists.push_back(group.events.size() > 1 ? "{" + text + "}:W" : text);
        (m == 0 ? groups_ : chosen.counted).push_back(std::move(group));
      }
      if (o_.verbose && !chosen.lists.empty()) {
        std::string list;
        for (const std::string& events : chosen.lists) list += (list.empty() ? "" : " ") + events;
        std::fprintf(stderr, "perfmon stat: the metrics' events, as counted%s: %s\n",
                     metrics_.size() > 1 ? (" (group " + std::to_string(m + 1) + ")").c_str() : "", list.c_str());
      }
    }
  }

  // -M's metrics on the rows (with --metric-only, they alone: perf's shadow figures left out),
  // each that has no value said once.
  void add_chosen_metrics(std::vector<StatRow>& rows, double elapsed_ns, std::optional<double> user_s,
                          std::optional<double> sys_s, std::size_t set) {
    if (o_.metric_only)
      for (StatRow& row : rows) row.metric.reset();
    for (std::string& note : add_metrics(rows, metrics_[set].table, *metrics_[set].set, elapsed_ns, user_s, sys_s))
      if (std::find(metric_notes_.begin(), metric_notes_.end(), note) == metric_notes_.end())
        metric_notes_.push_back(std::move(note));
  }

  std::vector<EventGroup> groups_;
  // The metrics computed: -M's (and --topdown's) one set, or each likwid group's (the first also for
  // the whole run; with --markers, each in its regions).
  struct ChosenMetrics {
    MetricTable table;
    std::optional<MetricSet> set;     // refers to table: an element of a deque, never moved
    std::vector<std::string> lists;   // the events it adds, as the marker library counts them: {a,b}:W
    std::vector<EventGroup> counted;  // them parsed, for a set after the first (the first's are in groups_)
  };
  std::deque<ChosenMetrics> metrics_;
  std::vector<std::string> metric_notes_;  // metrics without a value, said once
  std::vector<EventSetDefinition> set_definitions_;
  PassPlan plan_;
  StatFormat format_ = StatFormat::Table;
  std::string separator_;
};

}  // namespace

int run_stat(std::span<char* const> given) {
  StatOptions o;
  std::vector<std::string> words = with_likwid_group(given);
  std::vector<char*> args;
  for (std::string& word : words) args.push_back(word.data());
  if (auto status = parse_command_line(args, "stat", kSynopsis, stat_options(o), o.command,
                                       [&](const std::vector<std::string>&) { validate(o); }))
    return *status;
  try {
    WaitedSignals waited;
    StatCommand command(o);
    return command.execute();
  } catch (const Error& error) {
    const int status = report_run_error("stat", error);
    // Strict mode's refusal of what would be multiplexed: the tool's way to count it all.
    if (o.strict && error.kind() == ErrorKind::Limit && error.errnum() == EINVAL)
      std::fprintf(stderr, "Run 'perfmon stat --passes' to count them in passes: the command runs once per pass.\n");
    return status;
  }
}

}  // namespace perfmon::cli
