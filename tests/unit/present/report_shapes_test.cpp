// perfmon report's shapes come from one table: each writes what its own function writes, and the
// tool offers them in that order.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "perfmon/profile.hpp"
#include "perfmon/report_output.hpp"

namespace perfmon {
namespace {

// One sample of cpu-clock, at 0x1000 in thread 7.
void add_one_sample(Profile& profile) {
  perf_event_header header{PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER, 8};
  Sample sample;
  sample.record = &header;
  sample.pid = sample.tid = 7;
  sample.ip = 0x1000;
  sample.period = 1;
  profile.sample(0, sample);
}

TEST(ReportShapes, EachWritesWhatItsFunctionWrites) {
  const std::vector<ReportShape>& shapes = report_shapes();
  ASSERT_EQ(shapes.size(), 5u);
  std::set<std::string> names;
  for (const ReportShape& shape : shapes) names.insert(shape.name);
  EXPECT_EQ(names, (std::set<std::string>{"stdio", "json", "folded", "svg", "speedscope"}));
  EXPECT_EQ(std::string(shapes.front().name), "stdio");  // the default comes first
  Profile profile({"cpu-clock"});
  add_one_sample(profile);
  const ReportOptions options;
  const ReportView view{0, "cpu-clock, 1 samples of perf.data"};
  for (const ReportShape& shape : shapes) {
    const std::string name = shape.name;
    const std::string text = shape.format(profile, options, view);
    std::string expected;
    if (name == "stdio") expected = format_report_table(profile, options);
    if (name == "json") expected = format_report_json(profile, options);
    if (name == "folded") expected = format_folded_stacks(profile, 0);
    if (name == "svg") expected = format_flame_graph(profile, 0, "Flame Graph: " + view.title);
    if (name == "speedscope") expected = format_speedscope(profile, view.title);
    EXPECT_EQ(text, expected) << name;
    EXPECT_EQ(shape.draws == ReportShape::Draws::OneEventsPicture, name == "svg") << name;
    EXPECT_EQ(shape.draws == ReportShape::Draws::AllEvents, name == "stdio" || name == "json") << name;
    EXPECT_EQ(shape.draws == ReportShape::Draws::ThreadsStacks, name == "speedscope") << name;
  }
}

}  // namespace
}  // namespace perfmon
