// SPDX-License-Identifier: Apache-2.0
// perfmonpy: perf.data files read into numpy arrays (read_perf_data): samples, their frames and names.
#include "measuring.hpp"

#include <cstdint>
#include <memory>
#include <optional>
#include <utility>

#include "perf_data_arrays.hpp"
#include "perfmon/perf_data.hpp"
#include "perfmon/symbols.hpp"

namespace perfmonpy {

namespace {

// A vector handed to numpy as it is, without a copy: the array owns it and frees it when it goes.
template <class T>
py::array handed_over(std::vector<T>&& values, const py::dtype& type) {
  auto owned = std::make_unique<std::vector<T>>(std::move(values));
  const py::capsule owner(owned.get(), [](void* vector) { delete static_cast<std::vector<T>*>(vector); });
  std::vector<T>& held = *owned.release();  // the capsule's from here
  return py::array(type, {static_cast<py::ssize_t>(held.size())}, {static_cast<py::ssize_t>(sizeof(T))}, held.data(),
                   owner);
}

// Names from a recording (commands, files, symbols) as Python's os module gives names: bytes that
// are not UTF-8 (a command named in Latin-1) as surrogate escapes, never a UnicodeDecodeError.
py::str os_text(const std::string& bytes) {
  return py::reinterpret_steal<py::str>(
      PyUnicode_DecodeUTF8(bytes.data(), static_cast<Py_ssize_t>(bytes.size()), "surrogateescape"));
}
py::list os_texts(const std::vector<std::string>& list) {
  py::list texts;
  for (const std::string& bytes : list) texts.append(os_text(bytes));
  return texts;
}

py::dict read_perf_data(const std::string& path, bool callchains, bool symbols, std::size_t threads) {
  std::optional<perfmon::PerfDataReader> reader;
  std::unique_ptr<ArrayCollector> collector;
  const auto tables = std::make_shared<perfmon::SymbolTables>();
  {
    py::gil_scoped_release others_run;
    reader.emplace(path);
    if (threads == 0) threads = reader->threads_worth();
    // Each file's symbols read once, whichever share names an address in it first.
    tables->expect_build_ids(reader->build_ids());
    bool first = true;
    collector = reader->read_merged<ArrayCollector>(
        threads,
        [&] {
          auto share = std::make_unique<ArrayCollector>(callchains, symbols, tables);
          if (std::exchange(first, false)) share->rows_.reserve(reader->outlook().records);  // all end there
          return share;
        },
        [](ArrayCollector& into, ArrayCollector& later) { into.absorb(later); });
  }
  ArrayCollector& collected = *collector;
  py::dict file;
  file["samples"] = handed_over(std::move(collected.rows_), py::dtype::of<SampleRow>());
  file["frame_ips"] = handed_over(std::move(collected.frame_ips_), py::dtype::of<std::uint64_t>());
  file["frame_symbols"] = handed_over(std::move(collected.frame_symbols_), py::dtype::of<std::int32_t>());
  file["mappings"] = handed_over(std::move(collected.mappings_), py::dtype::of<MappingRow>());
  py::list events;
  for (const perfmon::PerfDataEvent& event : reader->events()) events.append(os_text(event.name));
  file["events"] = events;
  py::list symbols_table;
  for (const auto& [name, dso] : collected.symbols_table_) symbols_table.append(py::make_tuple(os_text(name), dso));
  file["symbols"] = symbols_table;
  file["dsos"] = os_texts(collected.dsos_);
  file["comms"] = os_texts(collected.comms_);
  file["lost"] = collected.lost_.samples;
  file["lost_records"] = collected.lost_.records;
  file["hostname"] = os_text(reader->hostname());
  file["changed_files"] = tables->changed_files();
  file["build_ids"] = reader->build_ids();
  return file;
}

}  // namespace

void bind_perf_data(py::module_& module) {
  PYBIND11_NUMPY_DTYPE(SampleRow, time, pid, tid, cpu, event, mapping, ip, period, symbol, dso, comm, chain_length,
                       chain_begin);
  PYBIND11_NUMPY_DTYPE(MappingRow, pid, dso, start, end, offset);
  module.def("read_perf_data", &read_perf_data, py::arg("path"), py::arg("callchains") = true,
             py::arg("symbols") = true, py::arg("threads") = 0);
}

}  // namespace perfmonpy
