// SPDX-License-Identifier: Apache-2.0
// Benchmark results as perfmon bench keeps them: Bencher's Metric Format written and read back,
// thresholds, the comparison's verdicts worked out by hand, and its table, Markdown and JUnit XML.
#include "perfmon/bench_results.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "perfmon/error.hpp"

namespace perfmon {
namespace {

BenchResults two_benchmarks(double instructions, double misses) {
  return {{"gzip -9 data",
           {{"instructions", instructions, instructions, instructions}, {"branch-misses", misses, misses, misses}}},
          {"sort | uniq", {{"instructions", 1000, 990, 1010}}}};
}

TEST(BenchResults, BencherMetricFormatRoundTrips) {
  const BenchResults results = two_benchmarks(1234567, 890);
  const std::string json = bench_results_json(results);
  EXPECT_NE(
      json.find("\"gzip -9 data\": {\n    \"instructions\": {\n      \"value\": 1234567.0,\n      \"lower_value\": "
                "1234567.0,\n      \"upper_value\": 1234567.0\n    },"),
      std::string::npos)
      << json;
  const BenchResults read = read_bench_results(json, "test");
  ASSERT_EQ(read.size(), 2u);
  EXPECT_EQ(read[1].benchmark, "sort | uniq");
  EXPECT_EQ(read[1].measures[0].lower, 990);
  EXPECT_EQ(read[1].measures[0].upper, 1010);
  // BMF's bounds are optional: without them, the value is both.
  const BenchResults bare = read_bench_results(R"({"b": {"latency": {"value": 88.5}}})", "test");
  EXPECT_EQ(bare[0].measures[0].lower, 88.5);
  EXPECT_EQ(bare[0].measures[0].upper, 88.5);
}

TEST(BenchResults, WhatIsNotBmfIsSaidInOneSentence) {
  auto refusal = [](const char* json) {
    try {
      read_bench_results(json, "base.json");
    } catch (const Error& error) {
      return std::string(error.what());
    }
    return std::string("accepted");
  };
  EXPECT_EQ(refusal("{"), "base.json is not JSON: give a file perfmon bench --save wrote (Bencher's Metric Format).");
  EXPECT_EQ(refusal("[1]"), "base.json is not Bencher's Metric Format: its top level is not an object of benchmarks.");
  EXPECT_EQ(refusal(R"({"b": 1})"), "base.json gives benchmark 'b' something other than an object of measures.");
  EXPECT_EQ(refusal(R"({"b": {"m": {"value": "1"}}})"),
            "base.json gives measure 'm' of benchmark 'b' no number as its value.");
  EXPECT_EQ(refusal(R"({"b": {"m": {"value": 1, "upper_value": null}}})"),
            "base.json gives measure 'm' of benchmark 'b' a upper_value that is not a number.");
}

TEST(BenchResults, ThresholdsForAllMeasuresAndEach) {
  EXPECT_EQ(parse_bench_thresholds("0.05%").percent, 0.05);
  const BenchThresholds mixed = parse_bench_thresholds("0.5,instructions=0.01%,branch-misses=2%");
  EXPECT_EQ(mixed.for_measure("instructions"), 0.01);
  EXPECT_EQ(mixed.for_measure("branch-misses"), 2);
  EXPECT_EQ(mixed.for_measure("branches"), 0.5);
  EXPECT_EQ(parse_bench_thresholds("instructions=1%").for_measure("cycles"), 0.1);  // the default
  for (const char* wrong : {"", "x", "-1%", "instructions=", "1%%", "nan"})
    EXPECT_THROW(parse_bench_thresholds(wrong), Error) << wrong;
}

TEST(BenchResults, ChangesPastTheirThresholdsAreRegressions) {
  const BenchResults base = two_benchmarks(1'000'000, 0);
  BenchResults now = two_benchmarks(1'001'000, 5);  // +0.1 %; misses from none
  now[1].measures[0].value = 900;                   // sort | uniq: -10 %
  now.push_back({"new one", {{"instructions", 1, 1, 1}}});
  BenchThresholds thresholds = parse_bench_thresholds("0.05%,instructions=0.1%");
  std::vector<BenchChange> changes = compare_bench_results(base, now, thresholds);
  ASSERT_EQ(changes.size(), 4u);
  EXPECT_NEAR(*changes[0].percent, 0.1, 1e-9);
  EXPECT_FALSE(changes[0].regression);  // 0.1 % is not past 0.1 %
  EXPECT_TRUE(changes[1].regression);   // from 0: any growth
  EXPECT_FALSE(changes[1].percent);
  EXPECT_TRUE(changes[2].improvement);
  EXPECT_FALSE(changes[3].base);  // new
  thresholds.per_measure.clear();
  changes = compare_bench_results(base, now, thresholds);
  EXPECT_TRUE(changes[0].regression);  // 0.1 % is past 0.05 %
  EXPECT_EQ(bench_regressions(changes),
            "2 measures grew past their thresholds: instructions of 'gzip -9 data' +0.100% (threshold 0.05%); "
            "branch-misses of 'gzip -9 data' from 0 (threshold 0.05%).");
  EXPECT_EQ(bench_regressions(compare_bench_results(base, base, {})), "");
  // What only the base has is listed, gone.
  changes = compare_bench_results(now, base, {});
  EXPECT_FALSE(changes.back().now);
  EXPECT_EQ(changes.back().benchmark, "new one");
}

TEST(BenchResults, TablesMarkdownAndJUnit) {
  const BenchResults base = two_benchmarks(1'000'000, 10);
  const BenchResults now = two_benchmarks(1'002'000, 10);
  const std::vector<BenchChange> changes = compare_bench_results(base, now, {});
  EXPECT_EQ(bench_results_table(now),
            "  benchmark    measure           value spread\n"
            "  gzip -9 data instructions  1,002,000      0\n"
            "               branch-misses        10      0\n"
            "  sort | uniq  instructions      1,000     20\n");
  const std::string table = bench_changes_table(changes);
  EXPECT_NE(table.find("  gzip -9 data instructions  1,000,000 1,002,000 +0.200% regression (threshold 0.1%)\n"),
            std::string::npos)
      << table;
  const std::string markdown = bench_changes_markdown(changes);
  EXPECT_TRUE(
      markdown.starts_with("### perfmon bench: 1 regression\n\n| Benchmark | Measure | Base | Now | Change | |\n"))
      << markdown;
  EXPECT_NE(markdown.find("| sort \\| uniq | instructions | 1,000 | 1,000 | +0.000% |  |\n"), std::string::npos)
      << markdown;  // a '|' in a name escaped
  const std::string junit = bench_junit(now, changes);
  EXPECT_NE(junit.find("<testsuite name=\"perfmon bench\" tests=\"2\" failures=\"1\">"), std::string::npos) << junit;
  EXPECT_NE(junit.find("<failure message=\"instructions +0.200% (threshold 0.1%)\" type=\"regression\"/>"),
            std::string::npos)
      << junit;
  EXPECT_NE(junit.find("<system-out>instructions 1,002,000\nbranch-misses 10\n</system-out>"), std::string::npos)
      << junit;
}

}  // namespace
}  // namespace perfmon
