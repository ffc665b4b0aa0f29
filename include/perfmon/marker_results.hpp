// SPDX-License-Identifier: Apache-2.0
// perfmon: the results a program's marker library leaves in PERFMON_MARKERS_JSON (libperfmon-likwid's,
// written as the program calls LIKWID_MARKER_CLOSE; perfmon's own program regions', as it exits),
// written and read back: the groups' event names and every thread's sums of every region
// (marked_regions.hpp). The program wrote the file, so nothing in it is trusted when read: a file
// of another shape is refused with what is wrong in it.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "perfmon/marked_regions.hpp"

namespace perfmon {

struct MarkerResults {
  std::vector<std::vector<std::string>> groups;  // each group's event names, as written
  std::vector<MarkedRegionResult> regions;       // in the file's order
};

// The file's text for `regions`' results so far: one line per region and thread.
std::string marker_results_json(const MarkedRegions& regions);
// Written to `path` whole, or not at all (output_file.hpp). Throws perfmon::Error.
void write_marker_results(const std::string& path, const MarkedRegions& regions);

// Throws perfmon::Error (InvalidArgument) saying what is wrong where `json` is not such a file.
MarkerResults parse_marker_results(std::string_view json);

// Reads the file at `path`: a regular file only (never a FIFO or a device, which could block or
// never end; a symlink is not followed), of at most 64 MiB. Throws perfmon::Error: InvalidArgument
// where it is not such a file, System with the errno where it cannot be read (ENOENT: the program
// wrote none).
MarkerResults read_marker_results(const std::string& path);

}  // namespace perfmon
