// SPDX-License-Identifier: Apache-2.0
// perfmonpy's compiled half, _perfmonpy: perfmon's C++ API as Python sees it (docs/python.md).
// The package around it (python/perfmonpy) gives the context managers, the decorator, the
// exception classes and the tables; the module binds counting sessions, event sets, recordings,
// the commands they run and perf.data files read into arrays, one file an area (bind_*.cpp).
// Its perfmon::Error become the package's exceptions (perfmonpy/errors.py) by kind.
#include "measuring.hpp"

namespace {

namespace py = pybind11;

const char* kind_name(perfmon::ErrorKind kind) {
  switch (kind) {
    case perfmon::ErrorKind::InvalidEvent:
      return "InvalidEvent";
    case perfmon::ErrorKind::UnknownEvent:
      return "UnknownEvent";
    case perfmon::ErrorKind::Unsupported:
      return "Unsupported";
    case perfmon::ErrorKind::OtherCpuModel:
      return "OtherCpuModel";
    case perfmon::ErrorKind::Permission:
      return "Permission";
    case perfmon::ErrorKind::NoSuchTarget:
      return "NoSuchTarget";
    case perfmon::ErrorKind::Limit:
      return "Limit";
    case perfmon::ErrorKind::InvalidArgument:
      return "InvalidArgument";
    case perfmon::ErrorKind::CommandFailed:
      return "CommandFailed";
    case perfmon::ErrorKind::System:
      return "System";
  }
  return "System";
}

}  // namespace

void perfmonpy::raise_in_python(std::exception_ptr raised) {
  try {
    std::rethrow_exception(raised);
  } catch (const perfmon::Error& error) {
    const py::object raise = py::module_::import("perfmonpy.errors").attr("_raise_from_library");
    // _raise_from_library builds the exception; setting it here raises it in the caller.
    const py::object exception = raise(error.what(), error.errnum(), kind_name(error.kind()));
    PyErr_SetObject(reinterpret_cast<PyObject*>(Py_TYPE(exception.ptr())), exception.ptr());
  } catch (py::error_already_set& error) {
    error.restore();
  } catch (const std::exception& error) {
    PyErr_SetString(PyExc_RuntimeError, error.what());
  }
}

PYBIND11_MODULE(_perfmonpy, module) {
  module.doc() = "perfmon's C++ API for Python; import perfmonpy instead (docs/python.md).";

  py::register_exception_translator([](std::exception_ptr raised) {
    try {
      if (raised) std::rethrow_exception(raised);
    } catch (const perfmon::Error&) {
      perfmonpy::raise_in_python(raised);
    }
  });

  perfmonpy::bind_counting(module);
  perfmonpy::bind_recording(module);
  perfmonpy::bind_perf_data(module);
}
