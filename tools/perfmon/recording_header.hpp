// SPDX-License-Identifier: Apache-2.0
// What perf report and perf script print of a perf.data file beside its samples: the header
// (--header, --header-only), the count of its records by type (report --stats) and the threads'
// own counts (report -T).
#pragma once

#include <string>

#include "perfmon/perf_data.hpp"

namespace perfmon::cli {

// perf's "# ========" block: where the sections lie, the machine (hostname, os release, CPUs,
// memory, the command line that recorded) and each event's attributes, the fields set.
std::string format_recording_header(const PerfDataReader& file, const std::string& path);

// perf report --stats' "Aggregated stats": the records of each type and their share.
std::string format_record_stats(const PerfDataReader& file);

// perf report -T: the counts each thread wrote when it exited (PERF_RECORD_READ, perf record -s), a
// row per thread and a column per event; "" where the file holds none.
std::string format_thread_counts(const PerfDataReader& file);

}  // namespace perfmon::cli
