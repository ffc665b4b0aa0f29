// SPDX-License-Identifier: Apache-2.0
#include "counts/hybrid_totals.hpp"

#include <gtest/gtest.h>
#include <linux/perf_event.h>

namespace perfmon {
namespace {

StatRow hybrid_row(const std::string& pmu, std::uint32_t type, std::uint64_t raw, std::uint64_t running) {
  StatRow row;
  row.event = pmu + "/instructions/";
  row.total_name = "instructions";
  row.type = PERF_TYPE_HARDWARE;
  row.config = (std::uint64_t{type} << 32) | PERF_COUNT_HW_INSTRUCTIONS;
  row.value = {raw, 1000, running, 0};
  row.scaled = static_cast<double>(raw);
  return row;
}

TEST(HybridTotals, RowsAreFollowedByTheirSum) {
  StatRow clock;
  clock.event = "task-clock";
  std::vector<StatRow> rows = {hybrid_row("cpu_core", 8, 700, 600), hybrid_row("cpu_atom", 10, 300, 400), clock};
  analysis::append_hybrid_totals(rows);
  ASSERT_EQ(rows.size(), 4u);
  EXPECT_EQ(rows[2].event, "instructions");
  EXPECT_EQ(rows[2].config, static_cast<std::uint64_t>(PERF_COUNT_HW_INSTRUCTIONS));  // the generic event
  EXPECT_EQ(rows[2].value.raw, 1000u);
  EXPECT_DOUBLE_EQ(rows[2].scaled, 1000.0);
  EXPECT_EQ(rows[2].state, StatRow::State::Counted);
  EXPECT_EQ(rows[3].event, "task-clock");
  // A part that never ran adds nothing; the sum is not counted only when no part was.
  std::vector<StatRow> idle = {hybrid_row("cpu_core", 8, 0, 0), hybrid_row("cpu_atom", 10, 5, 10)};
  idle[0].state = StatRow::State::NotCounted;
  analysis::append_hybrid_totals(idle);
  EXPECT_EQ(idle[2].value.raw, 5u);
}

}  // namespace
}  // namespace perfmon
