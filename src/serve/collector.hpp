// SPDX-License-Identifier: Apache-2.0
// A source of series for /metrics: what it reads on each scrape, apart from the text it writes.
// A new source (per process, energy, a derived metric) is a file collect_<name>.cpp defining
// collect_<name>(options) and one line of PERFMON_COLLECTORS (collectors.cpp).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "perfmon/metrics.hpp"
#include "serve/exposition.hpp"

namespace perfmon::serve {

class Collector {
 public:
  virtual ~Collector() = default;
  // Reads what it collects now. One scrape at a time: the exporter holds its lock.
  virtual void collect() = 0;
  // Its families, each whole, from what collect() read.
  virtual void expose(Exposition& out) const = 0;
  // What it cannot collect on this machine, and why ("event: reason").
  virtual std::vector<std::string> unsupported() const { return {}; }
  // What it leaves out now, and why ("PATH: not counted: ...").
  virtual std::vector<std::string> not_counted() const { return {}; }
};

// The collectors the options ask for, in the order their families are written. Throws
// perfmon::Error.
std::vector<std::unique_ptr<Collector>> make_collectors(const MetricsOptions& options);

}  // namespace perfmon::serve
