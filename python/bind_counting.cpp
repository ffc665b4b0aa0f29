// perfmonpy: counting sessions (counters(...), stat(command)), passes, and what this machine can count.
#include "measuring.hpp"

#include <cstdint>
#include <cstring>
#include <memory>

#include "perfmon/pass_plan.hpp"
#include "perfmon/probe.hpp"
#include "perfmon/session.hpp"
#include "perfmon/system_info.hpp"

namespace perfmonpy {

namespace {

// A counting session and what it stands on. Python holds one per `counters(...)`.
class Session {
 public:
  Session(const std::string& events, const TargetSpec& where, bool inherit, bool strict, bool skip_unsupported,
          bool error_bars)
      : Session(catalog().parse(events), where, inherit, strict, skip_unsupported, error_bars) {}
  Session(std::vector<perfmon::EventGroup> groups, const TargetSpec& where, bool inherit, bool strict,
          bool skip_unsupported, bool error_bars)
      : on_(std::move(groups), where) {
    perfmon::SessionOptions options;
    options.inherit = inherit;
    options.strict = strict;
    options.skip_unsupported = true;  // told below, all at once, with every reason
    options.error_bars = error_bars;
    session_.emplace(on_.groups, on_.target, options);
    if (!skip_unsupported) {
      std::string refused;
      for (std::size_t e = 0; e < session_->event_count(); ++e)
        if (!session_->supported(e)) refused += (refused.empty() ? "" : " ") + session_->unsupported_reason(e);
      if (!refused.empty()) throw perfmon::Error(perfmon::ErrorKind::Unsupported, refused);
    }
  }

  // Reads every group; an errno where a read failed.
  void read() {
    if (const int failed = session_->read(); failed != 0)
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
    session_->reset();
    session_->start();
    depth_ = 1;
  }
  bool end() {
    if (depth_ > 1) {
      --depth_;
      return false;
    }
    depth_ = 0;
    session_->stop();
    read();
    return false;  // an exception in the block goes on
  }
  // How many readings so far: what was made of the last one is made anew when this changes.
  std::uint64_t readings() const { return readings_; }

  // Runs the command to its end, the counters on it; its exit code (128 + signal for a signal).
  int run_command() {
    if (!on_.workload && !on_.emulated)
      throw perfmon::Error(perfmon::ErrorKind::InvalidArgument, "this session counts no command.");
    session_->start();
    auto finish = [this] {
      session_->stop();
      read();
    };
    if (on_.workload) {
      on_.workload->start();
      return run_to_end(
          *on_.workload, [this] { wait_a_while_for(on_.workload->pid()); }, finish);
    }
    on_.emulated->start();
    return run_to_end(
        *on_.emulated, [this] { wait_a_while_for(on_.emulated->pid()); }, finish);
  }

  // The last read as numbers (reading_arrays).
  py::tuple values() const { return reading_arrays(session_->reading()); }
  perfmon::Reading reading() const { return session_->reading(); }
  bool emulated() const { return on_.emulated.has_value(); }
  std::vector<std::string> notes() const { return session_->reading().notes; }
  std::vector<std::string> summary() const { return session_->reading().summary; }

 private:
  Footing on_;
  std::optional<perfmon::CounterSession> session_;
  std::uint64_t readings_ = 0;
  int depth_ = 0;  // blocks entered and not left
};

// A command once per pass of events that fit on the counters at once (perfmon/pass_plan.hpp), so
// that no event is multiplexed: one reading whose events say their pass ("pass1", ...), the passes'
// exit codes, and the plan as perfmon stat --plan prints it. Events that need no counter (software
// events, tracepoints) are counted in every pass: their spread says how alike the runs were.
py::tuple stat_passes(const std::string& events, const std::vector<std::string>& command, bool inherit) {
  const std::vector<perfmon::EventGroup> groups = catalog().parse(events);
  // Where the CPU does not say how many counters it has, events that need none still plan; the
  // planner refuses any that needs one, saying so.
  const perfmon::PassPlan plan = perfmon::plan_passes(
      groups, perfmon::counter_budget().value_or(perfmon::CounterBudget{0, {}, "the CPU does not say"}));
  TargetSpec where;
  where.kind = "command";
  where.command = command;
  perfmon::Reading merged;
  std::vector<int> exit_codes;
  for (std::size_t pass = 0; pass < plan.passes.size(); ++pass) {
    Session session(plan.groups_of(pass, groups), where, inherit, true, false, false);
    exit_codes.push_back(session.run_command());
    perfmon::Reading reading = session.reading();
    for (perfmon::ReadingEvent& event : reading.events) {
      event.label = "pass" + std::to_string(pass + 1);
      event.label_kind = "pass";
      merged.events.push_back(std::move(event));
    }
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
      .def(py::init<const std::string&, const TargetSpec&, bool, bool, bool, bool>(), py::arg("events"),
           py::arg("target"), py::arg("inherit"), py::arg("strict"), py::arg("skip_unsupported"), py::arg("error_bars"))
      .def("read", &Session::read)
      .def_property_readonly("readings", &Session::readings)
      .def("run_command", &Session::run_command)
      .def_property_readonly("emulated", &Session::emulated)
      .def_property_readonly("notes", &Session::notes)
      .def_property_readonly("summary", &Session::summary)
      .def("value_arrays", &Session::values);

  module.def("probe", &probe, py::arg("events"));
  module.def("emulator", &emulator);
  module.def("stat_passes", &stat_passes, py::arg("events"), py::arg("command"), py::arg("inherit"));
}

}  // namespace perfmonpy
