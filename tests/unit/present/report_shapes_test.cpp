// SPDX-License-Identifier: Apache-2.0
// perfmon report's shapes come from one table, read here as the tool reads it: each shape has a
// name of its own and the one writer its needs say, writes something of a profile (or of the
// records) and the same again, draws the event it is told to, and compares where it says it does.
// A shape added to the table is checked by these without a line here.
#include <gtest/gtest.h>

#include <memory>
#include <set>
#include <string>

#include "perfmon/profile.hpp"
#include "perfmon/report_output.hpp"

namespace perfmon {
namespace {

// A sample of `event` at `ip` in thread 7, with a two-frame stack.
void add_sample(Profile& profile, std::size_t event, std::uint64_t ip) {
  perf_event_header header{PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER, 8};
  const std::uint64_t chain[] = {ip, 0x2000};
  Sample sample;
  sample.record = &header;
  sample.pid = sample.tid = 7;
  sample.ip = ip;
  sample.period = 1;
  sample.callchain = chain;
  profile.sample(event, sample);
}

// Two events; only the second has samples.
std::unique_ptr<Profile> second_event_profile(std::uint64_t ip, const ProfileOptions& options) {
  auto profile = std::make_unique<Profile>(std::vector<std::string>{"cpu-clock", "task-clock"}, options);
  add_sample(*profile, 1, ip);
  add_sample(*profile, 1, ip + 0x10);
  return profile;
}

ProfileOptions options_for(const ReportShape& shape) {
  ProfileOptions options;
  options.stacks = shape.has(kStacks);
  options.thread_roots = shape.has(kThreadRoots);
  return options;
}

// One sample of one event, as a recording's records.
class OneSampleRecorded final : public Recorded {
 public:
  std::vector<std::pair<std::string, perf_event_attr>> events() const override {
    perf_event_attr attr{};
    attr.type = PERF_TYPE_SOFTWARE;
    attr.config = PERF_COUNT_SW_TASK_CLOCK;
    attr.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_PERIOD;
    return {{"task-clock", attr}};
  }
  std::map<std::string, std::string> build_ids() const override { return {}; }
  void read(SampleHandler& handler, const std::function<bool(std::size_t, std::uint64_t)>& unwind) const override {
    ++reads;
    unwound += unwind ? 0 : 1;  // given, and not called: no event copied user stacks
    perf_event_header header{PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER, 8};
    Sample sample;
    sample.record = &header;
    sample.pid = sample.tid = 7;
    sample.ip = 0x1000;
    sample.period = 1000;
    handler.sample(0, sample);
  }
  mutable int reads = 0, unwound = 0;
};

TEST(ReportShapes, NamesAreTheirOwnAndTheDefaultComesFirst) {
  std::set<std::string> names;
  for (const ReportShape& shape : report_shapes()) {
    EXPECT_TRUE(names.insert(shape.name).second) << shape.name << " twice";
    EXPECT_GT(std::string(shape.description).size(), 10u) << shape.name;
  }
  EXPECT_EQ(std::string(report_shapes().front().name), "stdio");
}

TEST(ReportShapes, EachHasTheOneWriterItsNeedsSay) {
  for (const ReportShape& shape : report_shapes()) {
    EXPECT_EQ(shape.from_records != nullptr, shape.has(kRecords)) << shape.name;
    EXPECT_EQ(shape.format != nullptr, !shape.has(kRecords)) << shape.name;
    // A shape that compares draws one event against the base's same event.
    if (shape.has(kCompares)) {
      EXPECT_TRUE(shape.has(kOneEvent)) << shape.name;
    }
  }
}

TEST(ReportShapes, EachWritesTheEventItIsToldToAndTheSameTwice) {
  const ReportOptions options;
  for (const ReportShape& shape : report_shapes()) {
    if (shape.has(kRecords)) continue;
    const std::unique_ptr<Profile> made = second_event_profile(0x1000, options_for(shape));
    const Profile& profile = *made;
    const ReportView view{1, "task-clock, 2 samples of perf.data"};
    const std::string text = shape.format(profile, options, view);
    EXPECT_FALSE(text.empty()) << shape.name;
    EXPECT_EQ(text, shape.format(profile, options, view)) << shape.name;
    if (shape.has(kOneEvent)) {
      // Told the first event, which has no samples, a shape of one event draws nothing of the second's.
      const ReportView first{0, "cpu-clock, 0 samples of perf.data"};
      EXPECT_NE(shape.format(profile, options, first), text) << shape.name;
    }
  }
}

TEST(ReportShapes, ThoseThatCompareShowTheBase) {
  const ReportOptions options;
  for (const ReportShape& shape : report_shapes()) {
    if (!shape.has(kCompares)) continue;
    const std::unique_ptr<Profile> now = second_event_profile(0x1000, options_for(shape));
    const std::unique_ptr<Profile> before = second_event_profile(0x3000, options_for(shape));
    const FlameGraphBase base{*before, 1};
    const ReportView alone{1, "task-clock"}, compared{1, "task-clock", &base};
    EXPECT_NE(shape.format(*now, options, compared), shape.format(*now, options, alone)) << shape.name;
  }
}

TEST(ReportShapes, ThoseOfTheRecordsReadThemOnce) {
  const ReportOptions options;
  for (const ReportShape& shape : report_shapes()) {
    if (!shape.has(kRecords)) continue;
    OneSampleRecorded recorded;
    EXPECT_FALSE(shape.from_records(recorded, options).empty()) << shape.name;
    EXPECT_EQ(recorded.reads, 1) << shape.name;
    EXPECT_EQ(recorded.unwound, 0) << shape.name;
  }
}

}  // namespace
}  // namespace perfmon
