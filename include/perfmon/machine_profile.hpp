// SPDX-License-Identifier: Apache-2.0
// perfmon: the whole machine sampled for a while, with call chains, as a pprof profile — what
// `perfmon serve` answers at /debug/pprof/profile?seconds=N, for Parca, Alloy's pprof scrape and
// `go tool pprof http://...`. The samples are recorded as perfmon record -a records them (the
// processes already running described first), then read into a PprofProfile (pprof.hpp).
#pragma once

#include <chrono>
#include <cstdint>
#include <stop_token>
#include <string>
#include <vector>

#include "perfmon/event.hpp"
#include "perfmon/pprof.hpp"

namespace perfmon {

struct MachineProfileOptions {
  std::vector<EventGroup> groups;  // the events sampled (each at `frequency`)
  std::uint64_t frequency = 99;    // samples a second, of each event on each CPU
  std::vector<int> cpus;           // empty: every online CPU
  PprofOptions pprof;              // how the samples are named (its build ids are the recording's)
};

// Samples for `duration`, or until `stop` is requested (then the profile covers the time sampled),
// and returns the gzipped profile.proto. Throws perfmon::Error (no permission to sample every CPU,
// an event the kernel refuses).
std::string profile_machine(const MachineProfileOptions& options, std::chrono::milliseconds duration,
                            std::stop_token stop = {});

}  // namespace perfmon
