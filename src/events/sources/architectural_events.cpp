// SPDX-License-Identifier: Apache-2.0
#include "events/sources/architectural_events.hpp"

#include <strings.h>

#include <cstdlib>
#include <sstream>

#include "events/sources/embedded_data.hpp"
#include "perfmon/error.hpp"

namespace perfmon::events {

namespace {

std::vector<std::string> split_csv_line(const std::string& line) {
  std::vector<std::string> fields;
  std::stringstream in(line);
  for (std::string item; std::getline(in, item, ',');) fields.push_back(item);
  if (!line.empty() && line.back() == ',') fields.emplace_back();
  return fields;
}

std::vector<ArchitecturalEvent> parse_table(const char* csv) {
  std::vector<ArchitecturalEvent> table;
  std::stringstream in(csv);
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#') continue;
    auto fields = split_csv_line(line);
    if (fields.size() != 8) throw Error(ErrorKind::System, "malformed architectural event row: '" + line + "'.");
    ArchitecturalEvent event;
    event.fixed = fields[0] == "fixed";
    event.name = fields[1];
    event.architectural_name = fields[2];
    event.event = static_cast<std::uint8_t>(std::strtoul(fields[3].c_str(), nullptr, 16));
    event.umask = static_cast<std::uint8_t>(std::strtoul(fields[4].c_str(), nullptr, 16));
    if (!fields[5].empty()) event.ebx_bit = static_cast<unsigned>(std::strtoul(fields[5].c_str(), nullptr, 10));
    if (!fields[6].empty()) event.fixed_counter = static_cast<unsigned>(std::strtoul(fields[6].c_str(), nullptr, 10));
    if (!fields[7].empty()) event.fixed_msr = static_cast<std::uint32_t>(std::strtoul(fields[7].c_str(), nullptr, 16));
    table.push_back(std::move(event));
  }
  return table;
}

}  // namespace

const std::vector<ArchitecturalEvent>& intel_architectural_events() {
  static const std::vector<ArchitecturalEvent> table = parse_table(kIntelArchitecturalEventsCsv);
  return table;
}

const ArchitecturalEvent* find_architectural_event(const std::string& name) {
  for (const ArchitecturalEvent& event : intel_architectural_events())
    if (strcasecmp(event.name.c_str(), name.c_str()) == 0) return &event;
  return nullptr;
}

const ArchitecturalEvent* find_architectural_event(std::uint8_t event_select, std::uint8_t umask) {
  for (const ArchitecturalEvent& event : intel_architectural_events())
    if (!event.fixed && event.event == event_select && event.umask == umask) return &event;
  return nullptr;
}

}  // namespace perfmon::events
