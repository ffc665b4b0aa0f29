// SPDX-License-Identifier: Apache-2.0
// What the report's table and JSON share: an event's entries merged by the sort keys, largest
// first, each with the call chains that end in it; and the call tree's children, in name order.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "perfmon/report_output.hpp"

namespace perfmon::present {

struct ReportChain {
  std::vector<NameId> frames;  // leaf first, or outermost first where options.chain_order is Caller
  std::uint64_t period = 0;
};

struct ReportRow {
  ProfileEntry key;  // the fields not sorted by are left 0
  std::uint64_t samples = 0, period = 0;
  std::uint64_t children_period = 0;  // with options.children: of the stacks through the row's function
  std::vector<ReportChain> chains;    // largest first; filled with options.callchains
};

std::vector<ReportRow> report_rows(const Profile& profile, const EventProfile& event, const ReportOptions& options);

// Each node's children, sorted by name.
std::vector<std::vector<std::uint32_t>> stack_children(const Profile& profile, const EventProfile& event);

// A share in percent (0 where the total is 0).
inline double percent(std::uint64_t part, std::uint64_t total) {
  return total == 0 ? 0.0 : 100.0 * static_cast<double>(part) / static_cast<double>(total);
}

}  // namespace perfmon::present
