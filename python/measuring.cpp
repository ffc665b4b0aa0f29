// SPDX-License-Identifier: Apache-2.0
#include "measuring.hpp"

#include <signal.h>

#include <chrono>
#include <cmath>
#include <optional>

namespace perfmonpy {

const perfmon::EventCatalog& catalog() {
  static const perfmon::EventCatalog known;
  return known;
}

py::tuple reading_arrays(const perfmon::Reading& reading) {
  const std::size_t n = reading.events.size();
  py::array_t<std::uint64_t> counts({n, std::size_t{3}});
  py::array_t<double> estimates({n, std::size_t{2}});
  py::array_t<bool> supported(n);
  auto c = counts.mutable_unchecked<2>();
  auto s = estimates.mutable_unchecked<2>();
  auto ok = supported.mutable_unchecked<1>();
  std::vector<std::string> names, parts, reasons;
  for (std::size_t e = 0; e < n; ++e) {
    const perfmon::ReadingEvent& event = reading.events[e];
    const perfmon::CounterValue& value = event.value;
    c(e, 0) = value.raw;
    c(e, 1) = value.enabled;
    c(e, 2) = value.running;
    s(e, 0) = event.estimate ? event.estimate->value : value.scaled();
    s(e, 1) = event.estimate && event.estimate->standard_error      ? *event.estimate->standard_error
              : value.running == value.enabled && value.running > 0 ? 0.0
                                                                    : std::nan("");
    ok(e) = event.supported;
    names.push_back(event.event.name);
    parts.push_back(event.label);
    reasons.push_back(event.unsupported_reason);
  }
  return py::make_tuple(names, parts, counts, estimates, supported, reasons);
}

std::vector<perfmon::EventSetDefinition> sets_switched_every(const std::vector<std::string>& sets,
                                                             std::int64_t switch_ns) {
  if (sets.empty()) throw perfmon::Error(perfmon::ErrorKind::InvalidArgument, "give at least one event set.");
  if (switch_ns <= 0) throw perfmon::Error(perfmon::ErrorKind::InvalidArgument, "each set's turn is a positive time.");
  perfmon::SetSwitching switching;
  switching.timeout = std::chrono::nanoseconds(switch_ns);
  return perfmon::event_sets_of(catalog(), sets, switching);
}

perfmon::MeasurementRequest request_of(const TargetSpec& where) {
  perfmon::MeasurementRequest request;
  if (where.kind == "command") {
    if (where.command.empty()) throw perfmon::Error(perfmon::ErrorKind::InvalidArgument, "the command is empty.");
    request.command = where.command;
    request.emulate = where.emulate;
    return request;
  }
  if (where.emulate)
    throw perfmon::Error(perfmon::ErrorKind::InvalidArgument,
                         "emulate=True counts a command on the emulated CPU: give command=[...].");
  perfmon::TargetChoice& target = request.target;
  if (where.kind == "thread")
    target.tids = {static_cast<pid_t>(where.id)};
  else if (where.kind == "process")
    target.pids = {static_cast<pid_t>(where.id)};
  else if (where.kind == "cpus")
    target.cpus = where.cpus;  // empty: every CPU
  else if (where.kind == "cgroup") {
    target.cgroup = where.cgroup;
    target.cpus = where.cpus;
  } else if (where.kind != "self")
    throw perfmon::Error(perfmon::ErrorKind::InvalidArgument, "no such target kind: '" + where.kind + "'.");
  return request;
}

namespace {

// Python's signal handlers, run between the rounds of a run.
class PythonSignals final : public perfmon::RunHooks {
 public:
  int interruption() override {
    py::gil_scoped_acquire gil;
    if (PyErr_CheckSignals() == 0) return 0;
    if (!interrupted) {
      interrupted.emplace();  // takes the exception the handler raised
      return SIGINT;
    }
    PyErr_Clear();  // the first is the one raised
    return SIGKILL;
  }

  std::optional<py::error_already_set> interrupted;
};

template <typename Run>
int to_end(Run&& run, const std::function<void()>& finished) {
  PythonSignals signals;
  perfmon::RunOptions options;
  options.longest_wait = std::chrono::milliseconds(100);
  perfmon::RunResult result;
  {
    py::gil_scoped_release others_run;
    result = run(signals, options);
  }
  finished();
  if (signals.interrupted) throw std::move(*signals.interrupted);
  return result.exit ? result.exit->exit_code() : 0;
}

}  // namespace

int run_to_end(perfmon::Measurement& measurement, const std::function<void()>& finished) {
  return to_end([&](perfmon::RunHooks& hooks,
                    const perfmon::RunOptions& options) { return perfmon::run(measurement, hooks, options); },
                finished);
}

int record_to_end(perfmon::Recording& recording, perfmon::Command* command, const std::function<void()>& finished) {
  return to_end(
      [&](perfmon::RunHooks& hooks, perfmon::RunOptions options) {
        options.tick = std::chrono::milliseconds(100);
        return recording.record(command, hooks, options);
      },
      finished);
}

}  // namespace perfmonpy
