// SPDX-License-Identifier: Apache-2.0
// The scrape's text as both formats write it: a family's HELP, TYPE and UNIT, its samples named by
// type, label values escaped, and OpenMetrics' end.
#include "serve/exposition.hpp"

#include <gtest/gtest.h>

namespace perfmon::serve {
namespace {

constexpr Family kSeconds{"perfmon_test_seconds", "counter", "seconds", "Seconds of something."};
constexpr Family kWhy{"perfmon_test_missing", "info", "", "Something missing, and why."};

std::string written(ExpositionFormat format) {
  Exposition out(format);
  out.begin(kSeconds);
  out.sample(kSeconds);
  out.label("event", "cpu/event=0x3c/");
  out.label("cpu", std::uint64_t{3});
  out.value(1.5);
  out.begin(kWhy);
  out.sample(kWhy);
  out.label("reason", "a \"quoted\" path\\ on\ntwo lines");
  out.label("cgroup", "Latin-1 \xe9t\xe9");
  out.value(std::uint64_t{1});
  return out.finish();
}

TEST(Exposition, TextFormatNamesCountersByTheirSamplesAndInfoAsGauges) {
  EXPECT_EQ(written(ExpositionFormat::Prometheus004),
            "# HELP perfmon_test_seconds_total Seconds of something.\n"
            "# TYPE perfmon_test_seconds_total counter\n"
            "perfmon_test_seconds_total{event=\"cpu/event=0x3c/\",cpu=\"3\"} 1.5\n"
            "# HELP perfmon_test_missing_info Something missing, and why.\n"
            "# TYPE perfmon_test_missing_info gauge\n"
            "perfmon_test_missing_info{reason=\"a \\\"quoted\\\" path\\\\ on\\ntwo lines\",cgroup=\"Latin-1 "
            "\xef\xbf\xbdt\xef\xbf\xbd\"} 1\n");
}

TEST(Exposition, OpenMetricsNamesFamiliesGivesUnitsAndEnds) {
  EXPECT_EQ(written(ExpositionFormat::OpenMetrics),
            "# HELP perfmon_test_seconds Seconds of something.\n"
            "# TYPE perfmon_test_seconds counter\n"
            "# UNIT perfmon_test_seconds seconds\n"
            "perfmon_test_seconds_total{event=\"cpu/event=0x3c/\",cpu=\"3\"} 1.5\n"
            "# HELP perfmon_test_missing Something missing, and why.\n"
            "# TYPE perfmon_test_missing info\n"
            "perfmon_test_missing_info{reason=\"a \\\"quoted\\\" path\\\\ on\\ntwo lines\",cgroup=\"Latin-1 "
            "\xef\xbf\xbdt\xef\xbf\xbd\"} 1\n"
            "# EOF\n");
}

}  // namespace
}  // namespace perfmon::serve
