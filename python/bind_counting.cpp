// SPDX-License-Identifier: Apache-2.0
// perfmonpy: counting sessions (counters(...), stat(command)), passes, and what this machine can count.
#include "measuring.hpp"

#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <optional>

#include "perfmon/emulated.hpp"
#include "perfmon/metric_table.hpp"
#include "perfmon/program_regions.hpp"
#include "perfmon/pass_plan.hpp"
#include "perfmon/probe.hpp"
#include "perfmon/system_info.hpp"

namespace perfmonpy {

namespace {

// A measurement from the run layer: a counting session, or with `sets` perfmon2's event sets, on
// the target Python names. Python holds one per `counters(...)`, `event_sets(...)` and `stat(...)`.
class Session {
 public:
  Session(const std::string& events, const TargetSpec& where, bool inherit, bool strict, bool skip_unsupported,
          bool error_bars, const std::vector<std::string>& sets, std::int64_t switch_ns)
      : Session(sets.empty() ? catalog().parse(events) : std::vector<perfmon::EventGroup>{}, where, inherit, strict,
                skip_unsupported, error_bars,
                sets.empty() ? std::vector<perfmon::EventSetDefinition>{} : sets_switched_every(sets, switch_ns)) {}
  Session(std::vector<perfmon::EventGroup> groups, const TargetSpec& where, bool inherit, bool strict,
          bool skip_unsupported, bool error_bars, std::vector<perfmon::EventSetDefinition> sets = {}) {
    perfmon::MeasurementRequest request = request_of(where);
    request.groups = std::move(groups);
    request.sets = std::move(sets);
    // Sets over a block of another thread, process, CPUs or cgroup: a thread of the measurement's
    // own switches them while the block runs (over the calling thread, its signal handler does).
    request.own_switching_thread = !request.sets.empty() && request.command.empty() && where.kind != "self";
    request.inherit = inherit;
    request.strict = strict;
    request.skip_unsupported = true;  // told below, all at once, with every reason
    request.error_bars = error_bars;
    measurement_ = perfmon::measure(request);
    if (!skip_unsupported) {
      std::string refused;
      for (const perfmon::ReadingEvent& event : measurement_->reading().events)
        if (!event.supported) refused += (refused.empty() ? "" : " ") + event.unsupported_reason;
      if (!refused.empty()) throw perfmon::Error(perfmon::ErrorKind::Unsupported, refused);
    }
  }

  // Reads every group; an errno where a read failed.
  void read() {
    if (const int failed = measurement_->read(); failed != 0)
      throw perfmon::Error(perfmon::ErrorKind::System,
                           std::string("reading the counters failed (") + std::strerror(failed) + ").", failed);
    ++readings_;
  }
  // `with` on the session itself, entered and left in C++ (a Python frame each costs more than
  // the binding's own work): reset and start; stop and one read.
  // Blocks nest (a `with c:` inside a `with c:`, a recursive function under @counters): only
  // the outermost starts and ends the counting, so that its reading is the whole of it.
  void begin() {
    if (depth_ > 0) {
      ++depth_;
      return;
    }
    measurement_->reset();
    started_ = std::chrono::steady_clock::now();
    measurement_->start();
    depth_ = 1;
  }
  bool end() {
    if (depth_ > 1) {
      --depth_;
      return false;
    }
    depth_ = 0;
    measurement_->stop();
    duration_ns_ = std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - started_).count();
    read();
    return false;  // an exception in the block goes on
  }
  // How many readings so far: what was made of the last one is made anew when this changes.
  std::uint64_t readings() const { return readings_; }

  // Runs the command to its end, the counters on it; its exit code (128 + signal for a signal).
  int run_command() {
    if (measurement_->command() == nullptr)
      throw perfmon::Error(perfmon::ErrorKind::InvalidArgument, "this session counts no command.");
    const auto started = std::chrono::steady_clock::now();
    return run_to_end(*measurement_, [this, started] {
      duration_ns_ = std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - started).count();
      ++readings_;
    });
  }
  // The wall time of the last block or command (metrics' duration_time), in nanoseconds.
  double duration_ns() const { return duration_ns_; }

  // The last read as numbers (reading_arrays).
  py::tuple values() const { return reading_arrays(measurement_->reading()); }
  perfmon::Reading reading() const { return measurement_->reading(); }
  bool emulated() const { return measurement_->reading().emulated; }
  std::vector<std::string> notes() const { return measurement_->reading().notes; }
  std::vector<std::string> summary() const { return measurement_->reading().summary; }
  // Each event set's turns and time on the PMU (ns), as of the last read; none for other kinds.
  std::vector<std::pair<std::uint64_t, std::uint64_t>> turns() const {
    std::vector<std::pair<std::uint64_t, std::uint64_t>> turns;
    for (const perfmon::ReadingTurns& part : measurement_->reading().turns)
      turns.emplace_back(part.runs, part.active_ns);
    return turns;
  }

 private:
  std::unique_ptr<perfmon::Measurement> measurement_;
  std::uint64_t readings_ = 0;
  int depth_ = 0;  // blocks entered and not left
  std::chrono::steady_clock::time_point started_;
  double duration_ns_ = 0;
};

std::vector<std::string> event_names(const std::string& events);

// Metrics of perfmon's tables (metric_table.hpp) over a reading's counts: counters(metrics=...),
// stat(metrics=...). The events the chosen metrics need; their values from the counts by name.
class Metrics {
 public:
  Metrics(const std::string& metrics, const std::string& metrics_dir)
      : table_(perfmon::MetricTable::for_this_machine(metrics_dir, perfmon::names_papi_presets(metrics))) {
    set_.emplace(table_, table_.select(metrics), perfmon::this_machine_facts(catalog()));
  }
  // The events to count: perf's tool events (duration_time, user_time, system_time) come from the run.
  std::vector<std::string> events() const {
    std::vector<std::string> counted;
    for (const std::string& event : set_->events())
      if (!perfmon::is_tool_event(event)) counted.push_back(event);
    return counted;
  }
  // The event list to count (perf's syntax): `named` as given, then the events the metrics need
  // that it does not name, grouped as perf stat -M groups them (perfmon::metric_event_groups).
  std::string event_list(const std::string& named) const {
    const std::vector<perfmon::EventGroup> given =
        named.empty() ? std::vector<perfmon::EventGroup>{} : catalog().parse(named);
    std::string list = named;  // an unknown event is left out: its metrics then say it was not measured
    for (const perfmon::EventGroup& group :
         perfmon::metric_event_groups(table_, *set_, catalog(), perfmon::this_machine_grouping(), given).groups) {
      std::string text;
      for (const perfmon::Event& event : group.events) text += (text.empty() ? "" : ",") + event.name;
      list += (list.empty() ? "" : ",") + (group.events.size() > 1 ? "{" + text + "}:W" : text);
    }
    return list;
  }
  // (names, values, errors, units, thresholds: 1 past, 0 not, -1 none) of the chosen metrics, in
  // their order, from each event's value and standard error (NaN where it has none) and the wall
  // time in seconds.
  py::tuple evaluate(const std::map<std::string, double>& values, const std::map<std::string, double>& errors,
                     double duration_s) const {
    std::vector<double> in, in_errors;
    for (const std::string& event : set_->events()) {
      const auto value = values.find(event), error = errors.find(event);
      in.push_back(event == "duration_time" ? duration_s : value != values.end() ? value->second : std::nan(""));
      in_errors.push_back(error != errors.end() && std::isfinite(error->second) ? error->second : 0);
    }
    std::vector<std::string> names, units;
    std::vector<double> metric_values, metric_errors;
    std::vector<int> thresholds;
    for (const perfmon::MetricResult& result : set_->evaluate(in, in_errors)) {
      const perfmon::MetricDefinition& metric = table_.metrics()[result.metric];
      names.push_back(metric.name);
      units.push_back(metric.unit);
      metric_values.push_back(result.value);
      metric_errors.push_back(result.error);
      thresholds.push_back(result.over_threshold ? (*result.over_threshold ? 1 : 0) : -1);
    }
    return py::make_tuple(names, metric_values, metric_errors, units, thresholds);
  }

 private:
  perfmon::MetricTable table_;
  std::optional<perfmon::MetricSet> set_;
};

// The events of a list as the catalogue names them (perf's syntax).
std::vector<std::string> event_names(const std::string& events) {
  std::vector<std::string> names;
  for (const perfmon::EventGroup& group : catalog().parse(events))
    for (const perfmon::Event& event : group.events) names.push_back(event.name);
  return names;
}

// A command once per pass of events that fit on the counters at once (perfmon/pass_plan.hpp), so
// that no event is multiplexed: one reading whose events say their pass ("pass1", ...), the passes'
// exit codes (None for a pass not run: none of its own events can be counted here, and its events
// say why), and the plan as perfmon stat --plan prints it. Events that need no counter (software
// events, tracepoints) are counted in every pass: their spread says how alike the runs were.
py::tuple stat_passes(const std::string& events, const std::vector<std::string>& command, bool inherit) {
  const std::vector<perfmon::EventGroup> groups = catalog().parse(events);
  // Where the CPU does not say how many counters it has, events that need none still plan; the
  // planner refuses any that needs one, saying so.
  const perfmon::PassPlan plan = perfmon::plan_passes(
      groups, perfmon::counter_budget().value_or(perfmon::CounterBudget{0, {}, "the CPU does not say"}));
  const perfmon::PassRuns passes(plan, groups);
  TargetSpec where;
  where.kind = "command";
  where.command = command;
  perfmon::Reading merged;
  std::vector<std::optional<int>> exit_codes;
  for (std::size_t pass = 0; pass < passes.count(); ++pass) {
    perfmon::Reading reading;
    if (passes.runs(pass)) {
      Session session(passes.groups_of(pass), where, inherit, true, false, false);
      exit_codes.emplace_back(session.run_command());
      reading = session.reading();
      perfmon::PassRuns::label(reading, pass);
    } else {
      exit_codes.emplace_back();
      reading = passes.not_run(pass);
    }
    for (perfmon::ReadingEvent& event : reading.events) merged.events.push_back(std::move(event));
  }
  return py::make_tuple(reading_arrays(merged), exit_codes, perfmon::describe_plan(plan, groups));
}

// Whether each event of a list can be counted here: "" where it can, else why not and what to do.
std::vector<std::pair<std::string, std::string>> probe(const std::string& events) {
  std::vector<std::pair<std::string, std::string>> answers;
  for (const perfmon::EventGroup& group : catalog().parse(events))
    for (const perfmon::Event& event : group.events) answers.emplace_back(event.name, perfmon::probe_event(event.attr));
  return answers;
}

// Whether this machine can run commands on perfmon's emulated CPU, with what, and if not why.
py::dict emulator() {
  const perfmon::EmulatorInfo info = perfmon::emulator_info();
  py::dict answer;
  answer["available"] = info.available;
  answer["qemu"] = info.qemu;
  answer["plugin"] = info.plugin;
  answer["reason"] = info.reason;
  return answer;
}

}  // namespace

void bind_counting(py::module_& module) {
  py::class_<TargetSpec>(module, "TargetSpec")
      .def(py::init<>())
      .def_readwrite("kind", &TargetSpec::kind)
      .def_readwrite("id", &TargetSpec::id)
      .def_readwrite("cpus", &TargetSpec::cpus)
      .def_readwrite("cgroup", &TargetSpec::cgroup)
      .def_readwrite("command", &TargetSpec::command)
      .def_readwrite("emulate", &TargetSpec::emulate);

  py::class_<Session> session(module, "Session");
  with_block(session)
      .def(py::init<const std::string&, const TargetSpec&, bool, bool, bool, bool, const std::vector<std::string>&,
                    std::int64_t>(),
           py::arg("events"), py::arg("target"), py::arg("inherit"), py::arg("strict"), py::arg("skip_unsupported"),
           py::arg("error_bars"), py::arg("sets") = std::vector<std::string>{}, py::arg("switch_ns") = 0)
      .def("read", &Session::read)
      .def_property_readonly("readings", &Session::readings)
      .def("run_command", &Session::run_command)
      .def_property_readonly("emulated", &Session::emulated)
      .def_property_readonly("notes", &Session::notes)
      .def_property_readonly("summary", &Session::summary)
      .def_property_readonly("turns", &Session::turns)
      .def_property_readonly("duration_ns", &Session::duration_ns)
      .def("value_arrays", &Session::values);

  py::class_<Metrics>(module, "Metrics")
      .def(py::init<const std::string&, const std::string&>(), py::arg("metrics"), py::arg("metrics_dir"))
      .def_property_readonly("events", &Metrics::events)
      .def("event_list", &Metrics::event_list, py::arg("named"))
      .def("evaluate", &Metrics::evaluate, py::arg("values"), py::arg("errors"), py::arg("duration_s"));
  module.def("event_names", &event_names, py::arg("events"));
  module.def("probe", &probe, py::arg("events"));
  module.def("emulator", &emulator);
  // perfmon's program regions (perfmon/program_regions.hpp), for the pytest plugin's blocks.
  module.def("program_regions_counted", &perfmon::program_regions_counted);
  module.def("program_region_start", [](const std::string& name) { perfmon::program_region_start(name); },
             py::arg("name"));
  module.def("program_region_stop", [](const std::string& name) { perfmon::program_region_stop(name); },
             py::arg("name"));
  module.def("stat_passes", &stat_passes, py::arg("events"), py::arg("command"), py::arg("inherit"));
}

}  // namespace perfmonpy
