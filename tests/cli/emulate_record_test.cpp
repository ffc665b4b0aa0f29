// SPDX-License-Identifier: Apache-2.0
// perfmon record --emulate: sampled every N instructions, exactly, with callchains, into a
// perf.data file that perfmon and perf read.
#include "emulated.hpp"

namespace perfmon::testing {
namespace {

// perfmon record --emulate into a file of a directory of its own.
class EmulatedRecord : public ::testing::Test {
 protected:
  void SetUp() override {
    REQUIRE_QEMU();
    char pattern[] = "/tmp/perfmon-emulated-record-XXXXXX";
    dir_ = mkdtemp(pattern);
    file_ = (dir_ / "perf.data").string();
  }
  void TearDown() override {
    if (!dir_.empty()) std::filesystem::remove_all(dir_);
  }
  Result record(std::vector<std::string> args) const {
    args.insert(args.begin(), {PERFMON, "record", "--emulate", "-q", "-o", file_});
    return run(args);
  }
  // Each sample of the file, as perfmon script --json prints it.
  std::vector<nlohmann::json> samples() const {
    Result r = run({PERFMON, "script", "--json", "-i", file_});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    std::vector<nlohmann::json> all;
    for (const std::string& line : lines_of(r.out)) all.push_back(nlohmann::json::parse(line));
    return all;
  }
  static std::size_t in_function(const std::vector<nlohmann::json>& samples, const std::string& function) {
    std::size_t n = 0;
    for (const nlohmann::json& sample : samples) n += sample.value("sym", "") == function;
    return n;
  }
  std::filesystem::path dir_;
  std::string file_;
};

// A thread takes a sample each c instructions it executes: the whole run floor(instructions / c),
// each of period c, the same from run to run; the loop's 2N instructions hold exactly 2N/c of them
// (c divides 2N), and its function's few other instructions one more at most.
TEST_F(EmulatedRecord, SamplesEveryPeriodOfInstructionsExactly) {
  const long long instructions = emulated_count({EMULATED_LOOP, loop(1'000'000)}, "instructions:u");
  Result r = record({"-c", "10000", "--", EMULATED_LOOP, loop(1'000'000)});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::vector<nlohmann::json> first = samples();
  EXPECT_EQ(first.size(), static_cast<std::size_t>(instructions / 10'000));
  EXPECT_GE(in_function(first, "exact_loop"), 200u);
  EXPECT_LE(in_function(first, "exact_loop"), 201u);
  for (const nlohmann::json& sample : first) {
    EXPECT_EQ(sample["event"], "instructions:u (emulated)");
    EXPECT_EQ(sample["period"], 10'000);
    EXPECT_EQ(sample["comm"], "perfmon-test-em");  // the program's name, as the kernel gives it
    EXPECT_FALSE(sample.contains("callchain") && !sample["callchain"].empty()) << sample;  // not asked for
  }
  ASSERT_EQ(record({"-c", "10000", "--", EMULATED_LOOP, loop(1'000'000)}).exit_code, 0);
  const std::vector<nlohmann::json> second = samples();
  ASSERT_EQ(second.size(), first.size());
  for (std::size_t k = 0; k < first.size(); ++k) EXPECT_EQ(second[k]["ip"], first[k]["ip"]) << k;
}

// -g: the callchain of the calls the emulated CPU executed and has not returned from.
TEST_F(EmulatedRecord, CallchainsAreTheCallsTheThreadIsIn) {
  ASSERT_EQ(record({"-g", "-c", "10000", "--", EMULATED_LOOP, loop(1'000'000)}).exit_code, 0);
  std::size_t checked = 0;
  for (const nlohmann::json& sample : samples()) {
    if (sample.value("sym", "") != "exact_loop") continue;
    std::vector<std::string> functions;
    for (const nlohmann::json& frame : sample["callchain"])
      if (!frame.value("inlined", false)) functions.push_back(frame.value("sym", "?"));
    ASSERT_GE(functions.size(), 3u) << sample;
    EXPECT_EQ(functions[0], "exact_loop");
    // main calls it (through run_loop, where the compiler did not inline that), and libc calls main.
    const auto main_at = std::find(functions.begin() + 1, functions.end(), "main");
    ASSERT_NE(main_at, functions.end()) << sample;
    EXPECT_LE(main_at - functions.begin(), 2) << sample;
    ASSERT_NE(main_at + 1, functions.end()) << sample;
    EXPECT_EQ(*(main_at + 1), "__libc_start_call_main") << sample;
    ++checked;
  }
  EXPECT_GE(checked, 200u);
}

// Every thread counts down its own instructions: each of 3 threads' loops holds 2N/c samples (or
// one more) of its own thread, and each called from start_thread.
TEST_F(EmulatedRecord, SamplesEveryThread) {
  ASSERT_EQ(record({"-g", "-c", "10000", "--", EMULATED_LOOP, loop(1'000'000), "3"}).exit_code, 0);
  std::map<long long, std::size_t> loop_samples;  // by thread
  for (const nlohmann::json& sample : samples()) {
    if (sample.value("sym", "") != "exact_loop") continue;
    ++loop_samples[sample["tid"].get<long long>()];
    bool from_start_thread = false;
    for (const nlohmann::json& frame : sample["callchain"])
      from_start_thread |= frame.value("sym", "") == "start_thread";
    EXPECT_TRUE(from_start_thread) << sample;
  }
  ASSERT_EQ(loop_samples.size(), 3u);
  for (const auto& [tid, n] : loop_samples) EXPECT_TRUE(n == 200 || n == 201) << "thread " << tid << ": " << n;
}

// The shell's children, each the loop after an exec, are sampled as processes of their own, named
// after their program; the shell is named sh.
TEST_F(EmulatedRecord, SamplesTheCommandsForksAndExecs) {
  const std::string script = std::string(EMULATED_LOOP) + " 1000000; " + EMULATED_LOOP + " 1000000 & wait";
  ASSERT_EQ(record({"-c", "10000", "--", "sh", "-c", script}).exit_code, 0);
  std::map<long long, std::size_t> loop_samples;  // by process
  bool shell = false;
  for (const nlohmann::json& sample : samples()) {
    shell |= sample["comm"] == "sh";
    if (sample.value("sym", "") != "exact_loop") continue;
    EXPECT_EQ(sample["comm"], "perfmon-test-em");
    ++loop_samples[sample["pid"].get<long long>()];
  }
  EXPECT_TRUE(shell);
  ASSERT_EQ(loop_samples.size(), 2u);
  for (const auto& [pid, n] : loop_samples) EXPECT_TRUE(n == 200 || n == 201) << "process " << pid << ": " << n;
}

// Debian's perf reads the file as its own: the event's name says emulated, the loop's symbol and
// its callers resolve, and perf says nothing against it.
TEST_F(EmulatedRecord, PerfReportReadsTheFile) {
  if (access("/usr/bin/perf", X_OK) != 0) GTEST_SKIP() << "Debian's linux-perf is not installed (/usr/bin/perf)";
  ASSERT_EQ(record({"-g", "-c", "10000", "--", EMULATED_LOOP, loop(1'000'000)}).exit_code, 0);
  Result report = run({"/usr/bin/perf", "report", "-i", file_, "--stdio", "--no-children", "--sort", "sym"});
  EXPECT_EQ(report.exit_code, 0) << report.err;
  EXPECT_EQ(report.err.find("arning"), std::string::npos) << report.err;
  EXPECT_NE(report.out.find("of event 'instructions:u (emulated)'"), std::string::npos) << report.out;
  EXPECT_NE(report.out.find("[.] exact_loop"), std::string::npos) << report.out;
  EXPECT_NE(report.out.find("__libc_start_call_main"), std::string::npos) << report.out;
  Result script = run({"/usr/bin/perf", "script", "-i", file_, "-G", "-F", "ip,sym"});
  EXPECT_EQ(script.exit_code, 0) << script.err;
  std::size_t loop_samples = 0;
  for (const std::string& line : lines_of(script.out)) loop_samples += line.find("exact_loop") != std::string::npos;
  EXPECT_TRUE(loop_samples == 200 || loop_samples == 201) << loop_samples;
}

// Ctrl-C's kind goes to the command; the file is complete and holds what the command sampled
// until then, but for at most its last 0.1 s (QEMU runs no plugin code when a signal kills).
TEST_F(EmulatedRecord, ATerminatedCommandStillGivesACompleteFile) {
  Process record({PERFMON, "record", "--emulate", "-o", file_, "--", EMULATED_LOOP, "30000000000"});
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));
  record.signal(SIGTERM);
  Result r = record.wait();
  EXPECT_EQ(r.exit_code, 128 + SIGTERM) << r.err;
  const std::size_t in_file = samples().size();
  EXPECT_GT(in_file, 100u);
  EXPECT_NE(r.err.find("wrote " + std::to_string(in_file) + " samples"), std::string::npos) << r.err;
}

TEST_F(EmulatedRecord, ErrorsSayWhatToDo) {
  struct Case {
    std::vector<std::string> options;
    const char* says;
  };
  for (const Case& c :
       {Case{{"-e", "cycles"}, "samples one event, instructions"},
        Case{{"-e", "instructions:k"}, "runs user mode only"}, Case{{"-F", "99"}, "give a period with -c"},
        Case{{"--call-graph", "dwarf"}, "use -g (or --call-graph fp), not dwarf"},
        Case{{"-a"}, "--emulate runs a command"}}) {
    std::vector<std::string> args = c.options;
    args.insert(args.end(), {"--", EMULATED_LOOP, "1"});
    Result r = record(args);
    EXPECT_EQ(r.exit_code, 129) << c.says;
    EXPECT_NE(r.err.find(c.says), std::string::npos) << r.err;
    EXPECT_FALSE(std::filesystem::exists(file_)) << c.says;
  }
  Result missing = record({"--", "no-such-command-anywhere"});
  EXPECT_EQ(missing.exit_code, 127);
  EXPECT_NE(missing.err.find("check the command's name and PATH"), std::string::npos) << missing.err;
  EXPECT_FALSE(std::filesystem::exists(file_));
}

// A full disk, on a private 64 KiB tmpfs: the samples wait in an unnamed file there, the
// recording ends in one sentence and exit 1, and nothing is left behind.
TEST_F(EmulatedRecord, AFullDiskLeavesNothingBehind) {
  const std::filesystem::path small = dir_ / "small";
  std::filesystem::create_directory(small);
  if (mount("tmpfs", small.c_str(), "tmpfs", 0, "size=64k") != 0)
    GTEST_SKIP() << "cannot mount a small tmpfs here (needs root): " << strerror(errno);
  Result r = run({PERFMON, "record", "--emulate", "-q", "-c", "100", "-o", (small / "perf.data").string(), "--",
                  EMULATED_LOOP, loop(1'000'000)});
  const bool empty = std::filesystem::is_empty(small);
  umount(small.c_str());
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("No space left on device; free some space"), std::string::npos) << r.err;
  EXPECT_TRUE(empty) << "a failed recording left a file";
}

}  // namespace
}  // namespace perfmon::testing
