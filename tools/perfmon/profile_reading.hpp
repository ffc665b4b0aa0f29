// A perf.data file read into a Profile, as perfmon report and perfmon diff read it: in shares on
// several threads where the file is worth it, stacks recorded with --call-graph dwarf unwound where
// this build can (a sentence on standard error where it cannot).
#pragma once

#include <memory>

#include "perfmon/perf_data.hpp"
#include "perfmon/profile.hpp"

namespace perfmon::cli {

// Samples of events recorded with --call-graph dwarf get their user stacks unwound by `handler`
// (a Profile or a pprof profile); false, after saying so, where this build cannot.
template <typename Handler>
bool unwind_copied_stacks(const PerfDataReader& file, Handler& handler);

// `threads` 0: as many as the file is worth (PerfDataReader::threads_worth).
std::unique_ptr<Profile> read_profile(const PerfDataReader& file, const ProfileOptions& options, long threads);

}  // namespace perfmon::cli
