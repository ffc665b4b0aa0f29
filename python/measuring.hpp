// What the parts of perfmonpy's compiled half share: the machine's catalogue, a target as Python
// names it, what a measurement stands on (its events, its target, the command it runs), a Reading as
// arrays, and a command run to its end with Ctrl-C taken. One file binds each area (bind_*.cpp);
// module.cpp makes the module of them.
#pragma once

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>
#include <signal.h>
#include <sys/types.h>

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "perfmon/catalog.hpp"
#include "perfmon/emulated.hpp"
#include "perfmon/error.hpp"
#include "perfmon/reading.hpp"
#include "perfmon/target.hpp"
#include "perfmon/workload.hpp"

namespace perfmonpy {

namespace py = pybind11;

// The machine's events, found once a process: reading sysfs and tracefs takes milliseconds.
const perfmon::EventCatalog& catalog();

// What to count on: one of the library's targets, with the command it runs where it has one.
struct TargetSpec {
  std::string kind = "self";  // self, thread, process, cpus, cgroup, command
  long id = 0;                // the thread's or process's
  std::vector<int> cpus;      // for cpus and cgroup (empty: every CPU)
  std::string cgroup;
  std::vector<std::string> command;
  bool emulate = false;
};

// A Reading as Python takes it, one row an event: (names, parts ("set1", "pass2"; "" for a
// measurement of one part), counts [raw, enabled ns, running ns], estimates [scaled, standard
// error: 0 for an exact count, NaN where unknown], supported, reasons).
py::tuple reading_arrays(const perfmon::Reading& reading);

// Up to 100 ms until process `pid` ends (its pidfd polled; a short sleep where pidfds are not).
void wait_a_while_for(pid_t pid);

// Runs a started command to its end: `between` (which waits up to about 100 ms: a drain, a
// service of the sets, or the command's end) over and over, other Python threads running. The
// interpreter's signal handlers run between rounds, so that Ctrl-C reaches a notebook or a script
// at once: the exception a handler raises (KeyboardInterrupt) is passed on to the command as
// SIGINT, which ends it, and raised once the command has ended and `finish` has run (the counts
// read, the recording written), as perf does on Ctrl-C. A command that takes no notice of SIGINT
// gets SIGKILL at the next Ctrl-C.
template <typename Command, typename Between, typename Finish>
int run_to_end(Command& command, Between&& between, Finish&& finish) {
  perfmon::WorkloadExit exit;
  std::optional<py::error_already_set> interrupted;
  for (;;) {
    {
      py::gil_scoped_release others_run;
      between();
      if (command.wait(exit, false)) break;
    }
    if (PyErr_CheckSignals() != 0) {
      if (!interrupted) {
        interrupted.emplace();  // takes the exception the handler raised
        command.signal(SIGINT);
      } else {
        PyErr_Clear();  // the first is the one raised
        command.signal(SIGKILL);
      }
    }
  }
  finish();
  if (interrupted) throw std::move(*interrupted);
  return exit.exit_code();
}

// What a measurement stands on: its events, and its target with the command it runs, if any (held
// before its exec in `workload`, or in `emulated` on the emulated CPU).
struct Footing {
  Footing(std::vector<perfmon::EventGroup> events, const TargetSpec& where)
      : groups(std::move(events)), target(target_of(where)) {}
  Footing(const Footing&) = delete;
  Footing& operator=(const Footing&) = delete;

  std::vector<perfmon::EventGroup> groups;
  std::optional<perfmon::Workload> workload;
  std::optional<perfmon::EmulatedWorkload> emulated;
  perfmon::Target target;

 private:
  perfmon::Target target_of(const TargetSpec& where) {
    if (where.kind == "command") {
      if (where.command.empty()) throw perfmon::Error(perfmon::ErrorKind::InvalidArgument, "the command is empty.");
      if (where.emulate) {
        emulated.emplace(where.command, perfmon::EmulatorOptions{}.enabled_for(groups));
        return perfmon::Target::emulated(*emulated);
      }
      workload.emplace(where.command);
      return perfmon::Target::workload(*workload);
    }
    if (where.emulate)
      throw perfmon::Error(perfmon::ErrorKind::InvalidArgument,
                           "emulate=True counts a command on the emulated CPU: give command=[...].");
    if (where.kind == "self") return perfmon::Target::self();
    if (where.kind == "thread") return perfmon::Target::thread(static_cast<pid_t>(where.id));
    if (where.kind == "process") return perfmon::Target::process(static_cast<pid_t>(where.id));
    if (where.kind == "cpus")
      return where.cpus.empty() ? perfmon::Target::all_cpus() : perfmon::Target::cpu_list(where.cpus);
    if (where.kind == "cgroup") return perfmon::Target::cgroup_on(where.cgroup, where.cpus);
    throw perfmon::Error(perfmon::ErrorKind::InvalidArgument, "no such target kind: '" + where.kind + "'.");
  }
};

// `with` on a class bound from T, entered and left in C++ (a Python frame each costs more than the
// binding's own work): T::begin(), and T::end(), whose result says whether an exception is kept.
template <typename T>
py::class_<T>& with_block(py::class_<T>& bound) {
  return bound
      .def("__enter__",
           [](py::object self) {
             self.cast<T&>().begin();
             return self;
           })
      .def("__exit__",
           [](T& measured, const py::object&, const py::object&, const py::object&) { return measured.end(); });
}

// Each area's classes and functions, added to the module.
void bind_counting(py::module_& module);
void bind_event_sets(py::module_& module);
void bind_recording(py::module_& module);
void bind_perf_data(py::module_& module);

}  // namespace perfmonpy
