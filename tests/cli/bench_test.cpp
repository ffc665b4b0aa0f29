// SPDX-License-Identifier: Apache-2.0
// perfmon bench as a CI job runs it: exact counts on the emulated CPU, the same every run and
// linear in the work; a baseline saved in Bencher's Metric Format (checked against BMF's JSON
// schema); a planted 0.1 % regression failing the gate with the measure named, in the table,
// Markdown and JUnit; the program's marked regions as benchmarks; every mistake said in one sentence.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "emulated.hpp"
#include "process.hpp"

namespace perfmon::testing {
namespace {

class Bench : public ::testing::Test {
 protected:
  void SetUp() override {
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  // The loop of exactly 2N instructions and N branches (tests/emulate/loop.c), benchmarked.
  Result bench(std::vector<std::string> options, long iterations) const {
    std::vector<std::string> argv = {PERFMON, "bench"};
    argv.insert(argv.end(), options.begin(), options.end());
    argv.insert(argv.end(), {"--", EMULATED_LOOP, std::to_string(iterations)});
    return run(argv);
  }
  const std::filesystem::path dir_ =
      std::filesystem::temp_directory_path() / ("perfmon-bench-" + std::to_string(getpid()));
};

TEST_F(Bench, EmulatedCountsAreExactTheSameEveryRunAndLinearInTheWork) {
  REQUIRE_QEMU();
  std::vector<nlohmann::json> measured;
  for (const long iterations : {100'000L, 200'000L, 300'000L}) {
    const Result r = bench({"-r", "3", "--json"}, iterations);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const nlohmann::json bmf = nlohmann::json::parse(r.out);
    const std::string name = "perfmon-test-emulated-loop " + std::to_string(iterations);
    ASSERT_TRUE(bmf.contains(name)) << r.out;
    for (const auto& [measure, metric] : bmf[name].items())
      EXPECT_EQ(metric["lower_value"], metric["upper_value"]) << measure << ": the same in each of 3 runs";
    measured.push_back(bmf[name]);
  }
  for (const char* measure : {"instructions", "branches", "branch-misses", "L1-dcache-load-misses", "LLC-load-misses"})
    ASSERT_TRUE(measured[0].contains(measure)) << measure;
  auto value = [&](std::size_t run, const char* measure) { return measured[run][measure]["value"].get<double>(); };
  // Each 100,000 more iterations: 200,000 more instructions and 100,000 more branches, exactly.
  EXPECT_EQ(value(1, "instructions") - value(0, "instructions"), 200'000);
  EXPECT_EQ(value(2, "instructions") - value(1, "instructions"), 200'000);
  EXPECT_EQ(value(2, "branches") - value(1, "branches"), 100'000);
}

TEST_F(Bench, APlantedRegressionFailsTheGateAndIsNamed) {
  REQUIRE_QEMU();
  const std::string base = (dir_ / "base.json").string(), markdown = (dir_ / "summary.md").string(),
                    junit = (dir_ / "junit.xml").string();
  const Result saved = bench({"--name", "loop", "--save", base}, 1'000'000);
  ASSERT_EQ(saved.exit_code, 0) << saved.err;
  EXPECT_NE(saved.out.find("perfmon bench: '"), std::string::npos) << saved.out;
  EXPECT_NE(saved.out.find("on the emulated CPU ("), std::string::npos) << saved.out;
  // The same build again: nothing changed, the gate passes.
  const Result same = bench({"--name", "loop", "--compare", base, "--markdown", markdown}, 1'000'000);
  EXPECT_EQ(same.exit_code, 0) << same.err;
  EXPECT_TRUE(read_file(markdown).starts_with("### perfmon bench: no regression\n")) << read_file(markdown);
  // 0.1 % more iterations: 2,000 more instructions in about 2 million, past a 0.05 % threshold.
  const Result worse = bench({"--name", "loop", "--compare", base, "--threshold", "0.05%,branch-misses=50%",
                              "--markdown", markdown, "--junit", junit},
                             1'001'000);
  EXPECT_EQ(worse.exit_code, 2) << worse.err;
  EXPECT_NE(worse.err.find("perfmon bench: 2 measures grew past their thresholds: instructions of 'loop' +0.1"),
            std::string::npos)
      << worse.err;
  EXPECT_NE(worse.err.find("% (threshold 0.05%); branches of 'loop' +0.1"), std::string::npos) << worse.err;
  EXPECT_NE(worse.out.find("regression (threshold 0.05%)"), std::string::npos) << worse.out;
  EXPECT_TRUE(read_file(markdown).starts_with("### perfmon bench: 2 regressions\n")) << read_file(markdown);
  EXPECT_NE(read_file(markdown).find("| loop | instructions | "), std::string::npos) << read_file(markdown);
  const std::string xml = read_file(junit);
  EXPECT_NE(xml.find("tests=\"1\" failures=\"1\""), std::string::npos) << xml;
  EXPECT_NE(xml.find("<testcase classname=\"perfmon.bench\" name=\"loop\">"), std::string::npos) << xml;
  EXPECT_NE(xml.find("<failure message=\"instructions +0.1"), std::string::npos) << xml;
  // A threshold the change stays under: passes.
  EXPECT_EQ(bench({"--name", "loop", "--compare", base, "--threshold", "1%"}, 1'001'000).exit_code, 0);
}

// A CI job's own variables (a branch's name, a commit's hash: here of several lengths) do not
// change the counts: the command gets a cleared environment, with what it needs (PATH); with
// --keep-env it gets them all.
TEST_F(Bench, TheJobsOwnVariablesDoNotChangeTheCounts) {
  REQUIRE_QEMU();
  auto instructions = [&](const std::string& value, bool keep) {
    std::vector<std::string> argv = {"/usr/bin/env", "CI_BRANCH=" + value, PERFMON,       "bench",
                                     "--json",       "--measures",         "instructions"};
    if (keep) argv.push_back("--keep-env");
    argv.insert(argv.end(), {"--", BENCH_EXAMPLE, "1000"});
    const Result r = run(argv);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    // After the program's own line ("checksum ..."), perfmon bench's BMF.
    return nlohmann::json::parse(r.out.substr(r.out.find("{\n")))
        .begin()
        .value()["instructions"]["value"]
        .get<double>();
  };
  const double counted = instructions("main", false);
  for (const std::size_t length : {1, 17, 150, 200}) EXPECT_EQ(instructions(std::string(length, 'x'), false), counted);
  auto seen = [&](bool keep) {  // what the command sees: env prints its environment
    std::vector<std::string> argv = {"/usr/bin/env", "CI_BRANCH=main", PERFMON, "bench", "--measures", "instructions"};
    if (keep) argv.push_back("--keep-env");
    argv.insert(argv.end(), {"--", "/usr/bin/env"});
    return run(argv).out;
  };
  EXPECT_EQ(seen(false).find("CI_BRANCH=main\n"), std::string::npos);
  EXPECT_NE(seen(false).find("PATH="), std::string::npos);
  EXPECT_NE(seen(true).find("CI_BRANCH=main\n"), std::string::npos);
}

// The file --save writes is Bencher's Metric Format, by the JSON schema Bencher publishes for it
// (https://bencher.dev/bmf.json: benchmarks, each an object of measures, each with a number
// `value` and optional numbers `lower_value` and `upper_value`), as python3-jsonschema reads it.
TEST_F(Bench, SavedResultsAreBencherMetricFormat) {
  REQUIRE_QEMU();
  if (run({"/usr/bin/python3", "-c", "import jsonschema"}).exit_code != 0)
    GTEST_SKIP() << "python3-jsonschema is missing (scripts/install-deps installs it)";
  const std::string saved = (dir_ / "results.json").string();
  ASSERT_EQ(bench({"--save", saved}, 1000).exit_code, 0);
  const Result checked = run({"/usr/bin/python3", "-c", R"(
import json, sys, jsonschema
measure = {"type": "object", "properties": {"value": {"type": "number"}, "lower_value": {"type": "number"},
           "upper_value": {"type": "number"}}, "required": ["value"]}
schema = {"$schema": "http://json-schema.org/draft-07/schema", "type": "object",
          "patternProperties": {".+": {"type": "object", "patternProperties": {".+": measure}}}}
document = json.load(open(sys.argv[1]))
jsonschema.validate(document, schema)
assert len(document) == 1 and all(len(m) == 5 for m in document.values()), document
print("valid")
)",
                              saved});
  EXPECT_EQ(checked.exit_code, 0) << checked.err;
  EXPECT_EQ(checked.out, "valid\n");
}

TEST_F(Bench, EachMarkedRegionIsABenchmark) {
  REQUIRE_QEMU();
  if (std::string(EMULATED_REGION).empty())
    GTEST_SKIP() << "this is the sanitizer build: a sanitized program does not run under qemu-user (its shadow memory)";
  const std::string saved = (dir_ / "regions.json").string();  // the program prints too: the file alone is BMF
  const Result r = run({PERFMON, "bench", "--save", saved, "--markers", "-r", "2", "--", LIKWID_THREADS});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json bmf = nlohmann::json::parse(read_file(saved));
  for (const char* region : {"work", "outer", "inner"}) EXPECT_TRUE(bmf.contains(region)) << r.out;
  // Each thread's inner region runs the same instructions every time: their sum does not vary.
  EXPECT_EQ(bmf["inner"]["instructions"]["lower_value"], bmf["inner"]["instructions"]["upper_value"]) << r.out;
  EXPECT_GT(bmf["inner"]["instructions"]["value"].get<double>(), 0);
}

// A program's regions marked with perfmon's own API (perfmon::ProgramRegion, no other library) as
// benchmarks, the same every run: 2,000 more iterations are exactly 12,000 more instructions in
// "outer" (its 2n and the 4n of "inner", which it holds), 8,000 in "inner", and 8,000 in "threaded"
// (2n in each of two threads, summed). Without perfmon the regions count nothing.
TEST_F(Bench, EachRegionOfPerfmonsOwnApiIsABenchmark) {
  REQUIRE_QEMU();
  if (std::string(PROGRAM_REGIONS).empty())
    GTEST_SKIP() << "this is the sanitizer build: a sanitized program does not run under qemu-user (its shadow memory)";
  auto instructions = [&](const char* n) {
    const std::string saved = (dir_ / (std::string("regions-") + n + ".json")).string();
    const Result r = run({PERFMON, "bench", "--markers", "--measures", "instructions", "-r", "2", "--save", saved, "--",
                          PROGRAM_REGIONS, n});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find("counted\n"), std::string::npos) << r.out;
    const nlohmann::json bmf = nlohmann::json::parse(read_file(saved));
    std::map<std::string, double> values;
    for (const char* region : {"outer", "inner", "threaded"}) {
      EXPECT_TRUE(bmf.contains(region)) << bmf;
      const nlohmann::json& measure = bmf[region]["instructions"];
      EXPECT_EQ(measure["lower_value"], measure["upper_value"]) << region << ": the same in both runs";
      values[region] = measure["value"].get<double>();
    }
    return values;
  };
  std::map<std::string, double> one = instructions("1000"), three = instructions("3000");
  EXPECT_EQ(three["outer"] - one["outer"], 12'000);
  EXPECT_EQ(three["inner"] - one["inner"], 8'000);
  EXPECT_EQ(three["threaded"] - one["threaded"], 8'000);
  EXPECT_LT(one["inner"], 4'000 + 2'000) << "more than the loop and the regions' own cost";
  EXPECT_EQ(run({PROGRAM_REGIONS, "10"}).out, "not counted\n");
}

// A program's PAPI high-level regions (PAPI_hl_region_begin/_end, libperfmon-papi) as benchmarks,
// each summed over its threads and instances; the single-threaded one the same every run; --markers
// and --papi refused together.
TEST_F(Bench, EachPapiRegionIsABenchmark) {
  REQUIRE_QEMU();
  if (std::string(PAPI_HL_PROGRAM).empty()) GTEST_SKIP() << "papi.h is missing (Debian's libpapi-dev)";
  if (std::string(EMULATED_REGION).empty())
    GTEST_SKIP() << "this is the sanitizer build: a sanitized program does not run under qemu-user (its shadow memory)";
  const std::string saved = (dir_ / "papi.json").string();
  const Result r = run({PERFMON, "bench", "--papi", "-r", "2", "--save", saved, "--", PAPI_HL_PROGRAM});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json bmf = nlohmann::json::parse(read_file(saved));
  for (const char* region : {"main", "work", "outer", "inner"}) EXPECT_TRUE(bmf.contains(region)) << bmf;
  EXPECT_EQ(bmf["main"]["instructions"]["lower_value"], bmf["main"]["instructions"]["upper_value"]) << bmf;
  EXPECT_GT(bmf["inner"]["instructions"]["value"].get<double>(), 0);
  EXPECT_EQ(run({PERFMON, "bench", "--papi", "--markers", "--", PAPI_HL_PROGRAM}).exit_code, 129);
}

// docs/bench.md's example project end to end: the baseline saved and recorded on main; the commit
// that makes parse_digits do 0.1 % more work fails the gate, and --explain names parse_digits
// first, with the differential flame graph drawn; the baseline's own build passes.
TEST_F(Bench, TheExampleProjectsRegressionIsCaughtAndExplained) {
  REQUIRE_QEMU();
  const std::string base = (dir_ / "base.json").string(), recording = (dir_ / "base.data").string(),
                    svg = (dir_ / "diff.svg").string();
  const Result saved =
      run({PERFMON, "bench", "--name", "example", "--save", base, "--record", recording, "--", BENCH_EXAMPLE});
  ASSERT_EQ(saved.exit_code, 0) << saved.err;
  const Result same =
      run({PERFMON, "bench", "--name", "example", "--compare", base, "--explain", recording, "--", BENCH_EXAMPLE});
  EXPECT_EQ(same.exit_code, 0) << same.err;
  EXPECT_EQ(same.out.find("Where the instructions changed"), std::string::npos) << same.out;
  const Result worse = run({PERFMON, "bench", "--name", "example", "--compare", base, "--threshold", "0.05%",
                            "--explain", recording, "--flame-graph", svg, "--", BENCH_EXAMPLE_MORE_WORK});
  EXPECT_EQ(worse.exit_code, 2) << worse.err;
  EXPECT_NE(worse.err.find("instructions of 'example' +0.1"), std::string::npos) << worse.err;
  const std::size_t explained = worse.out.find("Where the instructions changed");
  ASSERT_NE(explained, std::string::npos) << worse.out;
  std::istringstream lines(worse.out.substr(explained));
  std::string line;
  for (int skipped = 0; skipped < 4 && std::getline(lines, line);) ++skipped;  // the sentence, a blank, the header
  EXPECT_TRUE(line.starts_with("  parse_digits ")) << worse.out;               // the function the commit changed, first
  const std::string picture = read_file(svg);
  EXPECT_NE(picture.find("<svg"), std::string::npos);
  EXPECT_NE(picture.find("parse_digits"), std::string::npos);
}

// Each benchmark of a Google Benchmark binary a benchmark of its own, its timed loop counted alone:
// BM_Spin/N's loop spins N times, so 2,000 more iterations are exactly 4,000 more instructions; the
// set-up's two million before the loop are not counted, nor a thread's first marker calls (their
// symbols' binding); two threads count twice what one does, within the few instructions a second
// thread's harness adds; a single-threaded benchmark's second run counts the same; the harness's
// own output is not shown.
TEST_F(Bench, EachGoogleBenchmarkIsABenchmarkItsLoopCountedAlone) {
  REQUIRE_QEMU();
  if (std::string(GBENCH_PROGRAM).empty())
    GTEST_SKIP() << "no Google Benchmark binary here: libbenchmark-dev is missing, or this is the sanitizer build "
                    "(a sanitized program does not run under qemu-user)";
  const std::string saved = (dir_ / "gbench.json").string();  // the benchmarks print too: the file alone is BMF
  const Result r = run({PERFMON, "bench", "--google-benchmark", "--measures", "instructions,branches", "-r", "2",
                        "--save", saved, "--", GBENCH_PROGRAM});
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  // The harness's timings of one iteration are kept aside: perfmon bench's table is the result.
  EXPECT_EQ(r.out.find("Iterations"), std::string::npos) << r.out;
  EXPECT_EQ(r.err.find("Running "), std::string::npos) << r.err;
  const nlohmann::json bmf = nlohmann::json::parse(read_file(saved));
  ASSERT_EQ(bmf.size(), 3u) << bmf.dump();
  auto instructions = [&](const char* benchmark) {
    EXPECT_TRUE(bmf.contains(benchmark)) << benchmark << ": " << bmf.dump();
    const nlohmann::json& measure = bmf[benchmark]["instructions"];
    if (std::string_view(benchmark).find("threads:") == std::string_view::npos) {  // threads interleave differently
      EXPECT_EQ(measure["lower_value"], measure["upper_value"]) << benchmark << ": the same in both runs";
    }
    return measure["value"].get<double>();
  };
  const double one = instructions("BM_Spin/1000"), more = instructions("BM_Spin/3000");
  EXPECT_EQ(more - one, 4000) << r.out;
  EXPECT_EQ(
      bmf["BM_Spin/3000"]["branches"]["value"].get<double>() - bmf["BM_Spin/1000"]["branches"]["value"].get<double>(),
      2000);
  EXPECT_LT(one, 2'000 + 2'000) << "more than the loop and the markers' own cost of some 1,600 were counted";
  EXPECT_NEAR(instructions("BM_Spin/1000/threads:2"), 2 * one, 100) << r.out;
  // A program that is no Google Benchmark binary: one sentence.
  const Result not_gbench = run({PERFMON, "bench", "--google-benchmark", "--", "false"});
  EXPECT_EQ(not_gbench.exit_code, 129);
  EXPECT_NE(not_gbench.err.find("failed: --google-benchmark runs a Google Benchmark binary"), std::string::npos)
      << not_gbench.err;
  EXPECT_EQ(run({PERFMON, "bench", "--google-benchmark", "--markers", "--", GBENCH_PROGRAM}).exit_code, 129);
  const Result missing = run({PERFMON, "bench", "--google-benchmark", "--", "/nonexistent/benchmarks"});
  EXPECT_EQ(missing.exit_code, 127);
  EXPECT_EQ(missing.err,
            "perfmon bench: cannot run '/nonexistent/benchmarks': No such file or directory; check the command's name "
            "and PATH.\n");
}

// Natively, a region's event that this machine cannot count (no PMU in a VM) is left out with the
// reason, never shown as a zero; what it can count (task-clock) is kept.
TEST_F(Bench, NativeRegionsLeaveOutWhatCannotBeCountedNeverAZero) {
  if (std::string(EMULATED_REGION).empty()) GTEST_SKIP() << "this is the sanitizer build: --markers is tested without";
  const std::string saved = (dir_ / "native.json").string();
  const Result r = run({PERFMON, "bench", "--markers", "--native", "-e", "task-clock", "-r", "2", "--save", saved, "--",
                        LIKWID_THREADS});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json bmf = nlohmann::json::parse(read_file(saved));
  ASSERT_TRUE(bmf.contains("work")) << bmf;
  for (const auto& [region, measures] : bmf.items())
    for (const auto& [measure, value] : measures.items())
      EXPECT_GT(value["value"].get<double>(), 0) << region << " " << measure;
  EXPECT_TRUE(bmf["work"].contains("task-clock")) << bmf;
  if (!bmf["work"].contains("instructions")) {
    EXPECT_NE(r.out.find("instructions:u, branches:u, branch-misses:u, L1-dcache-load-misses:u and LLC-load-misses:u "
                         "are left out: "),
              std::string::npos)
        << r.out;
  }
}

TEST_F(Bench, MistakesAreSaidInOneSentence) {
  REQUIRE_QEMU();
  const Result failing = run({PERFMON, "bench", "--", EMULATED_LOOP, "1", "2000"});  // more threads than it takes
  EXPECT_EQ(failing.exit_code, 1);
  EXPECT_NE(failing.err.find("' exited with status "), std::string::npos) << failing.err;
  EXPECT_NE(failing.err.find(": a benchmark's counts are kept only from a run that succeeds (fix the command first)."),
            std::string::npos)
      << failing.err;
  const std::string missing = (dir_ / "none.json").string();
  const Result no_base = bench({"--compare", missing}, 10);
  EXPECT_EQ(no_base.exit_code, 129);
  EXPECT_NE(no_base.err.find("cannot read " + missing +
                             " (No such file or directory): give results perfmon bench --save wrote (Bencher's "
                             "Metric Format)."),
            std::string::npos)
      << no_base.err;
  const std::string fifo = (dir_ / "fifo").string();
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_EQ(bench({"--compare", fifo}, 10).exit_code, 129);  // refused, never waited on
  std::ofstream(dir_ / "broken.json") << "{\"loop\": [";
  const Result broken = bench({"--compare", (dir_ / "broken.json").string()}, 10);
  EXPECT_NE(broken.err.find("broken.json is not JSON"), std::string::npos) << broken.err;
  const Result threshold = bench({"--compare", missing, "--threshold", "fast"}, 10);
  EXPECT_EQ(threshold.exit_code, 129);
  EXPECT_NE(threshold.err.find("--threshold takes a percent ('0.1%') or MEASURE=PERCENT pairs"), std::string::npos)
      << threshold.err;
  EXPECT_EQ(bench({"--threshold", "1%"}, 10).exit_code, 129);   // without --compare
  EXPECT_EQ(bench({"--explain", missing}, 10).exit_code, 129);  // without --compare
  // --explain's base must be a recording: a BMF file is not one.
  const std::string results = (dir_ / "results.json").string();
  ASSERT_EQ(bench({"--save", results}, 10).exit_code, 0);
  const Result not_recording = bench({"--compare", results, "--explain", results}, 10);
  EXPECT_NE(not_recording.exit_code, 0);
  EXPECT_NE(not_recording.err.find("perfmon bench: "), std::string::npos) << not_recording.err;
  EXPECT_EQ(lines_of(not_recording.err).size(), 1u) << not_recording.err;
  EXPECT_EQ(run({PERFMON, "bench"}).exit_code, 129);  // no command
  EXPECT_EQ(bench({"-e", "no-such-event"}, 10).exit_code, 129);
}

}  // namespace
}  // namespace perfmon::testing
