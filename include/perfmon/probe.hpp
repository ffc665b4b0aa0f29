// perfmon: can this machine count an event? (Opens it on the calling thread and closes it.)
#pragma once

#include <linux/perf_event.h>

#include <string>

namespace perfmon {

// "" when the event opens here; otherwise the cause and what to do, as one sentence.
std::string probe_event(const perf_event_attr& attr);

}  // namespace perfmon
