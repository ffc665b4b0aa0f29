// SPDX-License-Identifier: Apache-2.0
// A perf.data file read into a Profile, as perfmon report and perfmon diff read it: in shares on
// several threads where the file is worth it, stacks recorded with --call-graph dwarf unwound where
// this build can (a sentence on standard error where it cannot).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <utility>
#include <vector>

#include "options.hpp"
#include "perfmon/perf_data.hpp"
#include "perfmon/profile.hpp"
#include "perfmon/report_output.hpp"

namespace perfmon::cli {

// Samples of events recorded with --call-graph dwarf get their user stacks unwound by `unwind`
// (a Profile's or a pprof profile's, for an event and its sample_regs_user); false, after saying
// so, where this build cannot.
bool unwind_copied_stacks(const PerfDataReader& file, const std::function<bool(std::size_t, std::uint64_t)>& unwind);

// `threads` 0: as many as the file is worth (PerfDataReader::threads_worth). Files that changed
// since the recording (their build ids) are not read, and said on standard error.
std::unique_ptr<Profile> read_profile(const PerfDataReader& file, const ProfileOptions& options, long threads);

// Each file the tables found changed since the recording, a line on standard error.
void say_changed_files(const SymbolTables& symbols);

// --sort comm,dso,sym for the commands whose rows are those keys' (diff, top). `takes` says so
// ("perfmon diff compares by comm, dso and sym"); a refusal is it and what was asked for instead.
Option row_keys_option(std::vector<ReportKey>& keys, std::string_view help, std::string takes);

// The file read in shares by `threads` threads (0: as many as it is worth) into handlers that
// make() makes, merged into the first (PerfDataReader::read_merged): a Profile, or the samples of
// perfmon annotate.
template <class Handler, class Make>
std::unique_ptr<Handler> read_merged(const PerfDataReader& file, long threads, Make make) {
  return file.read_merged<Handler>(threads > 0 ? static_cast<std::size_t>(threads) : file.threads_worth(), make,
                                   [](Handler& first, Handler& later) { first.merge(std::move(later)); });
}

}  // namespace perfmon::cli
