// SPDX-License-Identifier: Apache-2.0
// stat's rows and footnotes from one Reading, whichever measurement produced it.
#include <gtest/gtest.h>
#include <linux/perf_event.h>

#include "perfmon/stat.hpp"

namespace perfmon {
namespace {

ReadingEvent counted(const std::string& name, std::uint64_t raw, std::uint64_t enabled, std::uint64_t running) {
  ReadingEvent event;
  event.event.name = name;
  event.event.attr.type = PERF_TYPE_SOFTWARE;
  event.event.attr.config = PERF_COUNT_SW_PAGE_FAULTS;
  event.value = {raw, enabled, running, 0};
  return event;
}

TEST(StatRows, OneRowPerEventWithItsStateLabelAndError) {
  Reading reading;
  reading.events.push_back(counted("page-faults", 100, 1000, 500));
  reading.events.back().label = "set0";
  reading.events.back().label_kind = "set";
  reading.events.back().estimate = CountEstimate{200, 20.0, 5};
  reading.events.push_back(counted("minor-faults", 7, 1000, 1000));
  reading.events.back().fallbacks.user_space_only = true;
  reading.events.push_back(counted("cycles", 0, 0, 0));
  reading.events.back().supported = false;
  reading.events.back().unsupported_reason = "no PMU";
  reading.emulated = true;
  const std::vector<StatRow> rows = stat_rows(reading);
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0].prefix, "set0");
  EXPECT_EQ(rows[0].prefix_kind, "set");
  EXPECT_DOUBLE_EQ(rows[0].scaled, 200.0);  // extrapolated: 100 x 1000 / 500
  ASSERT_TRUE(rows[0].error_percent);
  EXPECT_DOUBLE_EQ(*rows[0].error_percent, 10.0);
  EXPECT_EQ(rows[1].event, "minor-faults:u");  // what the measurement restricted, as perf spells it
  EXPECT_FALSE(rows[1].error_percent);         // never multiplexed
  EXPECT_EQ(rows[2].state, StatRow::State::NotSupported);
  for (const StatRow& row : rows) EXPECT_TRUE(row.emulated);
}

TEST(StatRows, PerLocationWhereTheReadingKeepsLocationsApart) {
  Reading reading;
  reading.locations = {{-1, 0}, {-1, 1}};
  reading.events.push_back(counted("page-faults", 30, 10, 10));
  reading.events.back().at = {{10, 10, 10, 0}, {20, 10, 10, 0}};
  const std::vector<StatRow> rows = stat_rows(reading, StatBreakdown::PerLocation, location_labels(reading.locations));
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].prefix, "CPU0");
  EXPECT_EQ(rows[0].value.raw, 10u);
  EXPECT_EQ(rows[1].prefix, "CPU1");
  EXPECT_EQ(rows[1].value.raw, 20u);
  // One location is a row of its own too, with its label.
  Reading one = reading;
  one.locations.resize(1);
  one.events.back().at.resize(1);
  const std::vector<StatRow> single = stat_rows(one, StatBreakdown::PerLocation, {"sleep-42"});
  ASSERT_EQ(single.size(), 1u);
  EXPECT_EQ(single[0].prefix, "sleep-42");
  // Event sets sum over locations: their rows are the totals, whatever the breakdown asked.
  reading.events.back().at.clear();
  const std::vector<StatRow> totals = stat_rows(reading, StatBreakdown::PerLocation);
  ASSERT_EQ(totals.size(), 1u);
  EXPECT_EQ(totals[0].prefix, "");
  EXPECT_EQ(totals[0].value.raw, 30u);
}

TEST(StatRows, IntervalRowsAreTheChangeSinceThePreviousReading) {
  Reading reading;
  reading.events.push_back(counted("page-faults", 30, 100, 100));
  std::vector<CounterValue> previous;
  EXPECT_EQ(stat_interval_rows(reading, previous).front().value.raw, 30u);
  reading.events.back().value = {45, 180, 180, 0};
  const StatRow second = stat_interval_rows(reading, previous).front();
  EXPECT_EQ(second.value.raw, 15u);
  EXPECT_EQ(second.value.enabled, 80u);
}

TEST(StatRows, FootnotesSayHowItWasCountedThenWhatIsUnsupportedThenTheNotes) {
  Reading reading;
  for (const char* name : {"cycles", "instructions", "branches"}) {
    reading.events.push_back(counted(name, 0, 0, 0));
    reading.events.back().supported = false;
    reading.events.back().unsupported_reason = std::string(name) == "branches" ? "b" : "a";
  }
  reading.summary = {"set0: 1 run"};
  reading.notes = {"counted user space only"};
  EXPECT_EQ(stat_footnotes(reading),
            (std::vector<std::string>{"set0: 1 run", "<not supported> cycles, instructions: a",
                                      "<not supported> branches: b", "note: counted user space only"}));
}

StatRow row_of(const std::string& event, double scaled, const std::string& unit = "") {
  StatRow row;
  row.event = event;
  row.scaled = scaled;
  row.unit = unit;
  return row;
}

TEST(StatRows, PassSpreadComparesTheEventsCountedInMoreThanOnePass) {
  const std::vector<std::string> lines =
      pass_spread_lines({row_of("task-clock", 9, "msec"), row_of("cycles", 5), row_of("task-clock", 11, "msec")});
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0], "task-clock, counted in 2 passes: mean 10.00 msec, spread 20.00% (from 9.00 to 11.00)");
}

TEST(StatRows, SmallCountWarningsNameWhatAnEmptyProgramCountsOverTheFraction) {
  const std::vector<std::string> warnings =
      small_count_warnings({row_of("page-faults", 60), row_of("task-clock", 0.01, "msec")},
                           {row_of("page-faults", 100), row_of("task-clock", 10, "msec")});
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_EQ(warnings[0],
            "warning: region too small: starting and ending a program (an empty one, true, counts 60) is 60% of this "
            "count of 'page-faults'; measure more work in one run.");
}

}  // namespace
}  // namespace perfmon
