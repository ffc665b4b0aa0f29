// Model-specific event tables from libpfm4 (Debian's libpfm4-dev): names such as
// INST_RETIRED.ANY_P, L2_RQSTS.MISS:c=2 or skl::L2_RQSTS:MISS:u, for the host's CPU or, forced,
// for any model libpfm4 knows (skl, icl, spr, amd64_fam19h_zen3, ...).
#pragma once

#include <linux/perf_event.h>

#include <string>
#include <vector>

namespace perfmon::events {

// Whether this build has libpfm4 (the rig's static aarch64 build has not).
bool libpfm_available();

struct LibpfmEncoding {
  perf_event_attr attr{};
  std::string canonical;  // libpfm4's full spelling: skl::L2_RQSTS:MISS:e=0:i=0:c=2:...
};

// Encodes `name` in libpfm4's syntax ([pmu::]EVENT[.UMASK|:UMASK][:mod[=val]]...). `model` forces a
// CPU model; empty means the host's PMUs. Counts user and kernel unless :u or :k say otherwise.
// Throws perfmon::Error with libpfm4's reason.
LibpfmEncoding libpfm_encode(const std::string& name, const std::string& model);

// The core-PMU models libpfm4 knows.
std::vector<std::string> libpfm_models();

struct LibpfmEvent {
  std::string name;  // EVENT.UMASK, as Intel and AMD name them
  std::string description;
};
// The events of a model (forced), or of the host's core PMU (empty model).
std::vector<LibpfmEvent> libpfm_events(const std::string& model);

}  // namespace perfmon::events
