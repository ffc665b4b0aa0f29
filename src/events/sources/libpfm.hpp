// SPDX-License-Identifier: Apache-2.0
// Model-specific event tables from libpfm4 (Debian's libpfm4): names such as INST_RETIRED.ANY_P,
// L2_RQSTS.MISS:c=2 or skl::L2_RQSTS:MISS:u, for the host's CPU or, forced, for any model libpfm4
// knows (skl, icl, spr, amd64_fam19h_zen3, ...). libpfm.so.4 is loaded on first use, not at start:
// the dynamic loader spends milliseconds relocating its tables, which commands that never name a
// model-specific event should not pay.
#pragma once

#include <linux/perf_event.h>

#include <cstdint>
#include <string>
#include <vector>

#include "perfmon/error.hpp"

namespace perfmon::events {

// Whether libpfm4 can be used here (this build knows it, and libpfm.so.4 loads). Loads it.
bool libpfm_available();

struct LibpfmEncoding {
  perf_event_attr attr{};
  std::string canonical;  // libpfm4's full spelling: skl::L2_RQSTS:MISS:e=0:i=0:c=2:...
  // Empty when libpfm4 encoded the name; otherwise why not, as a clause without a final period
  // ("libpfm4 cannot encode 'X': event not found"), and what kind of error that is.
  std::string failure;
  ErrorKind failure_kind = ErrorKind::InvalidEvent;
};

// Encodes `name` in libpfm4's syntax ([pmu::]EVENT[.UMASK|:UMASK][:mod[=val]]...). `model` forces a
// CPU model; empty means the host's PMUs. Counts user and kernel unless :u or :k say otherwise.
LibpfmEncoding libpfm_encode(const std::string& name, const std::string& model);

// The core-PMU models libpfm4 knows (empty without libpfm4).
std::vector<std::string> libpfm_models();
// Whether libpfm4 knows the core-PMU model `model`.
bool libpfm_has_model(const std::string& model);

struct LibpfmEvent {
  std::string name;  // EVENT.UMASK, as Intel and AMD name them
  std::string description;
  std::uint64_t config = 0;  // as libpfm4 encodes it alone, counting user and kernel
};
// The events of a model (forced), or of the host's core PMU (empty model); none for an unknown
// model. Listed once per model and kept for the life of the process.
const std::vector<LibpfmEvent>& libpfm_events(const std::string& model);

}  // namespace perfmon::events
