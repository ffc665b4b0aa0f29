// SPDX-License-Identifier: Apache-2.0
// What the tests of perfmon stat's command line share: perfmon stat's argument vector, and its CSV
// rows read back.
#pragma once

#include <sstream>
#include <string>
#include <vector>

#include "process.hpp"

namespace perfmon::testing {

inline std::vector<std::string> fields_of(const std::string& line, char separator = ',') {
  std::vector<std::string> fields;
  std::istringstream in(line);
  for (std::string field; std::getline(in, field, separator);) fields.push_back(field);
  if (!line.empty() && line.back() == separator) fields.emplace_back();
  return fields;
}

// The value column of the CSV row for `event` (optionally with a row prefix such as comm-tid).
inline std::vector<long long> csv_values(const std::string& csv, const std::string& event) {
  std::vector<long long> values;
  for (const std::string& line : lines_of(csv)) {
    auto fields = fields_of(line);
    for (std::size_t i = 0; i + 1 < fields.size(); ++i)
      if (fields[i + 1] == "" && i + 2 < fields.size() && fields[i + 2] == event)
        values.push_back(std::stoll(fields[i]));
  }
  return values;
}

inline std::vector<std::string> stat(std::vector<std::string> args) {
  args.insert(args.begin(), {PERFMON, "stat"});
  return args;
}
}  // namespace perfmon::testing
