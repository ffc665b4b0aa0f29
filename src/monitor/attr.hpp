// The one place where the catalogue's attr (what an event is: type, config, rings, precision) is
// completed with what a measurement decides (how it is opened and read).
#pragma once

#include <linux/perf_event.h>

#include <cstdint>

#include "perfmon/event.hpp"

namespace perfmon::monitor {

struct OpenSettings {
  std::uint64_t read_format = 0;
  bool inherit = false;          // count threads and processes the target creates later
  bool enable_on_exec = false;   // group leaders start counting at the workload's exec
  bool user_access = false;      // core-PMU events allow user-mode counter reads
  bool skip_unsupported = true;  // an event this machine cannot count is kept, as unsupported
};

// Size, read format, disabled (leaders; members follow them), enable_on_exec, inherit, pinned
// (':D', leaders only), the first precise level to try for ':P', and what user-mode reads need.
perf_event_attr complete_attr(const Event& event, bool leader, const OpenSettings& settings) noexcept;

}  // namespace perfmon::monitor
