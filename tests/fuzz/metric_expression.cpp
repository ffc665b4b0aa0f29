// SPDX-License-Identifier: Apache-2.0
// Metric expressions in perf's language, as a table or a --metrics-dir file gives them: parsed,
// resolved and evaluated, with and without error bars. The first byte picks the inputs' values.
// Anything but perfmon::Error escaping, or any sanitizer report, is a finding.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <optional>
#include <string_view>
#include <vector>

#include "perfmon/error.hpp"
#include "perfmon/metric_expression.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return -1;  // not added to the corpus
  const std::string_view text(reinterpret_cast<const char*>(data + 1), size - 1);
  try {
    perfmon::MetricExpression expression = perfmon::MetricExpression::parse(text, data[0]);
    perfmon::MetricFacts facts;
    facts.literal = [&](std::string_view) -> std::optional<double> {
      return data[0] & 1 ? std::optional<double>(data[0]) : std::nullopt;
    };
    facts.has_event = [](std::string_view event) { return event.size() % 2 == 0; };
    facts.cpuid = data[0] & 2 ? "0x00000000413fd0c1" : "GenuineIntel-6-55-4";
    expression.resolve(facts);
    const std::size_t names = expression.names().size();
    const double kinds[] = {0.0, 1.0, -3.5, 1e300, std::nan(""), INFINITY};
    std::vector<double> values(names), errors(names), scratch(expression.scratch_size()), counts(names, 2);
    for (std::size_t i = 0; i < names; ++i) {
      values[i] = kinds[(data[0] + i) % std::size(kinds)];
      errors[i] = i % 2 ? 0.5 : 0;
    }
    expression.evaluate(values);
    expression.evaluate(values, errors, scratch, counts);
  } catch (const perfmon::Error&) {
  }
  return 0;
}
