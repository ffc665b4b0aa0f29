// SPDX-License-Identifier: Apache-2.0
// The text of a scrape, as Prometheus' text format 0.0.4 and OpenMetrics 1.0 write it: families
// (HELP, TYPE, UNIT) and their sample lines, label values escaped. Collectors write through it;
// none writes the format itself.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "perfmon/metrics.hpp"

namespace perfmon::serve {

// A family of samples.
struct Family {
  const char* name;  // the samples' name without "_total" (OpenMetrics' family name)
  const char* type;  // "counter", "info", "gauge"
  const char* unit;  // OpenMetrics' UNIT, or ""
  const char* help;
};

class Exposition {
 public:
  explicit Exposition(ExpositionFormat format) : format_(format) {}

  // HELP, TYPE (and UNIT in OpenMetrics) once; its samples follow, all of them before another's.
  void begin(const Family& family);
  // One sample line: name{key="value",...} value (no braces without labels). A counter's samples
  // are named family.name + "_total", an info's family.name + "_info", a gauge's family.name.
  void sample(const Family& family);
  void label(std::string_view key, std::string_view value);
  void label(std::string_view key, std::uint64_t value);
  void value(double value);
  void value(std::uint64_t value);

  // The text, ended as the format ends it.
  std::string finish();

 private:
  void open_label(std::string_view key);  // [,]key="

  ExpositionFormat format_;
  std::string out_;
  bool first_label_ = true;
};

}  // namespace perfmon::serve
