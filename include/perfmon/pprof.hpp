// SPDX-License-Identifier: Apache-2.0
// perfmon: profiles in pprof's format (github.com/google/pprof, proto/profile.proto), the one that
// `go tool pprof`, Parca, Grafana Pyroscope and Alloy read. Built from a recording's samples (or a
// live sampler's) and named by perfmon: each distinct stack is a sample whose locations are
// addresses in mappings (files, with their build ids), each with its function and source line, the
// functions inlined there first; two values per event, "<event>_sample" (how many samples) and
// "<event>_event" (the sum of their periods: events, or nanoseconds for the software clocks), as
// perf_data_converter names them; labels pid, tid, comm, and cpu and cgroup (where the event's
// samples carry them). Encoded by perfmon from the format's field numbers, gzipped as pprof's files are.
#pragma once

#include <linux/perf_event.h>

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "perfmon/sampler.hpp"
#include "perfmon/symbols.hpp"

namespace perfmon {

struct PprofEvent {
  std::string name;
  perf_event_attr attr{};  // its type and config (clocks count nanoseconds), sample_type, period
};

struct PprofOptions {
  bool inlined_frames = true;  // a location's inlined functions, from DWARF, as its first lines
  bool source_lines = true;    // the innermost line's number, from DWARF
  std::string debug_root = "/usr/lib/debug";
  // Build ids by file path, as a recording keeps them (PerfDataReader::build_ids()); a file not
  // named here is read for its own.
  std::map<std::string, std::string> build_ids;
  // Cgroup paths by id, for samples that carry PERF_SAMPLE_CGROUP (the id is the cgroup v2
  // directory's inode), besides those a recording's PERF_RECORD_CGROUP records name.
  std::map<std::uint64_t, std::string> cgroup_paths;
};

class PprofProfile : public SampleHandler {
 public:
  explicit PprofProfile(std::vector<PprofEvent> events, PprofOptions options = {},
                        std::shared_ptr<SymbolTables> symbols = nullptr);
  ~PprofProfile() override;
  PprofProfile(const PprofProfile&) = delete;
  PprofProfile& operator=(const PprofProfile&) = delete;

  // Samples of `event` carry user registers and stack (--call-graph dwarf): unwound with libdw.
  bool unwind_user_stacks(std::size_t event, std::uint64_t sample_regs_user);
  void sample(std::size_t event, const Sample& sample) override;
  void record(const perf_event_header& record) override;
  // When the profile began (nanoseconds since the epoch) and how long it lasted: pprof shows them.
  // Without them, the duration is the span of the samples' times.
  void set_time(std::uint64_t start_nanos, std::uint64_t duration_nanos);

  // The profile.proto message, gzipped (pprof's files and HTTP answers) or not.
  std::string encode(bool gzipped = true) const;

  struct State;

 private:
  std::unique_ptr<State> state_;
};

}  // namespace perfmon
