// SPDX-License-Identifier: Apache-2.0
// The sources of series, in the order their families are written: each one line, its function (in
// collect_<name>.cpp), which returns null where the options do not ask for it.
#include "serve/collector.hpp"

#define PERFMON_COLLECTORS(COLLECTOR) COLLECTOR(collect_event_counters) COLLECTOR(collect_derived_metrics)

namespace perfmon::serve {

#define PERFMON_DECLARE_COLLECTOR(factory) std::unique_ptr<Collector> factory(const MetricsOptions& options);
PERFMON_COLLECTORS(PERFMON_DECLARE_COLLECTOR)

std::vector<std::unique_ptr<Collector>> make_collectors(const MetricsOptions& options) {
  std::vector<std::unique_ptr<Collector>> collectors;
#define PERFMON_MAKE_COLLECTOR(factory) \
  if (std::unique_ptr<Collector> made = factory(options)) collectors.push_back(std::move(made));
  PERFMON_COLLECTORS(PERFMON_MAKE_COLLECTOR)
  return collectors;
}

}  // namespace perfmon::serve
