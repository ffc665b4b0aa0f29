// SPDX-License-Identifier: Apache-2.0
// The kinds of measurement, first chosen first: each one line, its function (in
// measure_<kind>.cpp) and when a request chooses it. The last is the default.
#include <cerrno>

#include "perfmon/error.hpp"
#include "perfmon/measurement.hpp"

#define PERFMON_MEASUREMENT_KINDS(KIND)                                     \
  KIND(measure_emulated, request.emulate)                                   \
  KIND(measure_event_sets, !request.sets.empty())                           \
  KIND(measure_nothing, request.groups.empty() && !request.command.empty()) \
  KIND(measure_counters, true)

namespace perfmon {

namespace kinds {
#define PERFMON_DECLARE_MEASUREMENT(factory, chosen) \
  std::unique_ptr<Measurement> factory(const MeasurementRequest& request);
PERFMON_MEASUREMENT_KINDS(PERFMON_DECLARE_MEASUREMENT)
}  // namespace kinds

std::unique_ptr<Measurement> measure(const MeasurementRequest& request) {
#define PERFMON_CHOOSE_MEASUREMENT(factory, chosen) \
  if (chosen) return kinds::factory(request);
  PERFMON_MEASUREMENT_KINDS(PERFMON_CHOOSE_MEASUREMENT)
  return nullptr;  // the last kind is chosen always
}

void Measurement::pause() {
  throw Error(ErrorKind::InvalidArgument,
              "only a counting session's events can be counted in parts; event sets and the emulated CPU count "
              "from start to end.",
              EINVAL);
}
void Measurement::resume() {
  pause();  // the same refusal
}

}  // namespace perfmon
