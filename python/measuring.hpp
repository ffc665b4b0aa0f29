// SPDX-License-Identifier: Apache-2.0
// What the parts of perfmonpy's compiled half share: the machine's catalogue, a target as Python
// names it (and as the run layer's request), a Reading as arrays, and a command run to its end with
// Ctrl-C taken. One file binds each area (bind_*.cpp);
// module.cpp makes the module of them.
#pragma once

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>
#include <sys/types.h>

#include <exception>
#include <functional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "perfmon/catalog.hpp"
#include "perfmon/error.hpp"
#include "perfmon/measurement.hpp"
#include "perfmon/reading.hpp"
#include "perfmon/recording.hpp"

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

// Event sets from lists of events (perf's syntax), each on the PMU for `switch_ns` of the target's
// time in turn. Throws perfmon::Error for no set or no time.
std::vector<perfmon::EventSetDefinition> sets_switched_every(const std::vector<std::string>& sets,
                                                             std::int64_t switch_ns);

// The target and command a TargetSpec names, as the run layer's request (its events left to the
// caller). Throws perfmon::Error for an empty command, emulate without one, an unknown kind.
perfmon::MeasurementRequest request_of(const TargetSpec& where);

// Runs a measurement of a command, or records one, to its end (perfmon::run, Recording::record),
// other Python threads running. The interpreter's signal handlers run at least every 100 ms, so
// that Ctrl-C reaches a notebook or a script at once: the exception a handler raises
// (KeyboardInterrupt) is passed on to the command as SIGINT, which ends it, and raised once the
// command has ended and `finished` has run, as perf does on Ctrl-C. A command that takes no notice
// of SIGINT gets SIGKILL at the next Ctrl-C. Returns its exit code (128 + signal for a signal).
int run_to_end(perfmon::Measurement& measurement, const std::function<void()>& finished);
int record_to_end(perfmon::Recording& recording, perfmon::Command* command, const std::function<void()>& finished);

// What the package's exceptions make of anything a call raised: a perfmon::Error as its kind's
// (perfmonpy/errors.py), pybind11's and the standard library's as pybind11 makes them.
void raise_in_python(std::exception_ptr raised);

// A method of T without arguments as CPython's own are (METH_NOARGS): no argument tuple, no
// overload to choose. What a block's begin and end cost in Python is then close to theirs in C++.
template <typename T, auto member>
PyObject* call_without_arguments(PyObject* self, PyObject*) {
  try {
    T& object = py::cast<T&>(py::handle(self));
    if constexpr (std::is_void_v<decltype((object.*member)())>) {
      (object.*member)();
      Py_RETURN_NONE;
    } else {
      return py::cast((object.*member)()).release().ptr();
    }
  } catch (...) {
    raise_in_python(std::current_exception());
    return nullptr;
  }
}

// `signature` as pybind11 writes one on the first line of a docstring: "begin() -> None".
template <typename T, auto member>
void def_without_arguments(py::class_<T>& bound, const char* name, const char* signature) {
  static PyMethodDef definition{name, &call_without_arguments<T, member>, METH_NOARGS, signature};
  bound.attr(name) =
      py::reinterpret_steal<py::object>(PyDescr_NewMethod(reinterpret_cast<PyTypeObject*>(bound.ptr()), &definition));
}

// `with` on a class bound from T, entered and left in C++ (a Python frame each costs more than the
// binding's own work): T::begin(), and T::end(), whose result says whether an exception is kept;
// begin() and end() also as they are, for the package's wrappers, called without arguments.
template <typename T>
py::class_<T>& with_block(py::class_<T>& bound) {
  def_without_arguments<T, &T::begin>(bound, "begin", "begin() -> None");
  def_without_arguments<T, &T::end>(bound, "end", "end() -> bool");
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
void bind_recording(py::module_& module);
void bind_perf_data(py::module_& module);

}  // namespace perfmonpy
