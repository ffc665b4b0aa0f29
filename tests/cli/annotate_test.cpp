// SPDX-License-Identifier: Apache-2.0
// perfmon annotate as a user runs it: exact samples on the worker's known hot lines and instruction
// (tracepoint samples of a system call made N times from one line and N/4 from another, through an
// inlined helper), the same instruction percents as perf annotate on perf's own file, a function in
// a shared library, a stripped program with its separate debug file, a loop in one line sampled on
// cpu-clock, and the sentences for what cannot be annotated.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <string>

#include "process.hpp"

namespace perfmon::testing {
namespace {

namespace fs = std::filesystem;

class CliAnnotate : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/perfmon-annotate-XXXXXX";
    dir_ = mkdtemp(pattern);
  }
  void TearDown() override { fs::remove_all(dir_); }

  // The worker's perfmon_annotated: `n` getppid calls from its hot line, n/4 from its quarter line.
  std::string record_annotated(const std::string& program, long n) {
    const std::string file = (dir_ / "perf.data").string();
    Result r = run({PERFMON, "record", "-q", "-e", "syscalls:sys_enter_getppid", "-c", "1", "-o", file, "--", program,
                    "annotate", std::to_string(n)});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return file;
  }
  static nlohmann::json annotation(const std::vector<std::string>& args) {
    std::vector<std::string> argv = {PERFMON, "annotate", "--json"};
    argv.insert(argv.end(), args.begin(), args.end());
    Result r = run(argv);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    const nlohmann::json document = nlohmann::json::parse(r.out);
    EXPECT_EQ(document["annotations"].size(), 1u) << r.out;
    return document["annotations"][0];
  }
  // The top-level line whose source text holds `marker`.
  static nlohmann::json line_marked(const nlohmann::json& annotation, const std::string& marker) {
    for (const nlohmann::json& line : annotation["lines"])
      if (line["text"].get<std::string>().find(marker) != std::string::npos) return line;
    ADD_FAILURE() << "no line marked '" << marker << "' in " << annotation.dump(1);
    return {};
  }
  // The addresses of a line's instructions and of those of the functions inlined there.
  static std::vector<std::string> instructions_under(const nlohmann::json& line) {
    std::vector<std::string> addresses = line["instructions"].get<std::vector<std::string>>();
    for (const nlohmann::json& call : line["inlined"])
      for (const nlohmann::json& inner : call["lines"])
        for (const std::string& address : instructions_under(inner)) addresses.push_back(address);
    return addresses;
  }
  static const nlohmann::json* hottest_instruction(const nlohmann::json& annotation) {
    const nlohmann::json* hottest = nullptr;
    for (const nlohmann::json& instruction : annotation["instructions"])
      if (hottest == nullptr || instruction["samples"] > (*hottest)["samples"]) hottest = &instruction;
    return hottest;
  }
  // The checks every build of perfmon_annotated passes: exact samples per line and instruction, the
  // inlined helper under the line that calls it.
  static void expect_annotated(const nlohmann::json& a, long n) {
    EXPECT_EQ(a["function"], "perfmon_annotated");
    EXPECT_EQ(a["samples"], n + n / 4);
    EXPECT_EQ(a["note"], "") << a["note"];
    const nlohmann::json hot = line_marked(a, "annotate: hot");
    const nlohmann::json quarter = line_marked(a, "annotate: quarter");
    EXPECT_EQ(hot["samples"], n);
    EXPECT_EQ(quarter["samples"], n / 4);
    EXPECT_DOUBLE_EQ(hot["percent"].get<double>(), 80.0);
    // The helper inlined on the hot line, its own line (the system call) beneath it.
    ASSERT_EQ(hot["inlined"].size(), 1u) << hot.dump(1);
    EXPECT_EQ(hot["inlined"][0]["function"], "perfmon_raw_getppid");
    ASSERT_FALSE(hot["inlined"][0]["lines"].empty());
    EXPECT_NE(hot["inlined"][0]["lines"][0]["text"].get<std::string>().find("syscall"), std::string::npos);
    EXPECT_NE(hot["inlined"][0]["lines"][0]["file"].get<std::string>().find("worker.cpp"), std::string::npos);
    // The hottest instruction carries the hot line's samples, and is one of that line's (its own or
    // its inlined helper's: an optimized build puts the instruction after the system call in the
    // loop, an unoptimized one in the helper).
    const nlohmann::json* hottest = hottest_instruction(a);
    ASSERT_NE(hottest, nullptr);
    EXPECT_EQ((*hottest)["samples"], n);
    const std::vector<std::string> under_hot = instructions_under(hot);
    EXPECT_NE(std::find(under_hot.begin(), under_hot.end(), (*hottest)["address"]), under_hot.end()) << hot.dump(1);
    // Every sample is on an instruction.
    long on_instructions = 0;
    for (const nlohmann::json& instruction : a["instructions"]) on_instructions += instruction["samples"].get<long>();
    EXPECT_EQ(on_instructions, n + n / 4);
  }

  fs::path dir_;
};

TEST_F(CliAnnotate, ExactSamplesOnTheHotLinesAndInstruction) {
  const std::string file = record_annotated(WORKER, 2000);
  const nlohmann::json a = annotation({"-i", file});  // the heaviest function by default
  expect_annotated(a, 2000);
  EXPECT_EQ(a["event"], "syscalls:sys_enter_getppid");
  EXPECT_EQ(a["dso"], WORKER);
#if defined(__x86_64__)
  EXPECT_EQ(a["architecture"], "x86-64");
  // The instruction before the hottest is the system call (the sample's address is where it returns).
  const auto& instructions = a["instructions"];
  for (std::size_t i = 1; i < instructions.size(); ++i)
    if (instructions[i]["samples"] == 2000) {
      EXPECT_EQ(instructions[i - 1]["text"], "syscall");
    }
#endif
}

TEST_F(CliAnnotate, TextShowsTheLinesWithTheirInstructionsAndSortsByPeriod) {
  const std::string file = record_annotated(WORKER, 400);
  Result r = run({PERFMON, "annotate", "-i", file, "perfmon_annotated"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("# perfmon_annotated in " + std::string(WORKER)), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("# event 'syscalls:sys_enter_getppid': 500 of its 500 samples, 100.00% of its period"),
            std::string::npos)
      << r.out;
  // "   80.00       400  worker.cpp:NN  for (...) sum += perfmon_raw_getppid();  // annotate: hot"
  const std::regex hot(R"(\n   80\.00       400  worker\.cpp:\d+ +for .*// annotate: hot\n)");
  const std::regex quarter(R"(\n   20\.00       100  worker\.cpp:\d+ +for .*// annotate: quarter\n)");
  // Blank figures where the helper's code took no sample (optimized), 80.00 where it did.
  const std::regex inlined(R"(\n[ 0-9.]{18}    inlined perfmon_raw_getppid\n)");
  EXPECT_TRUE(std::regex_search(r.out, hot)) << r.out;
  EXPECT_TRUE(std::regex_search(r.out, quarter)) << r.out;
  EXPECT_TRUE(std::regex_search(r.out, inlined)) << r.out;
  // Source order: the quarter line after the hot one; hottest first puts the function's closing
  // lines (no samples) after both, and the quarter line second.
  EXPECT_LT(r.out.find("annotate: hot"), r.out.find("annotate: quarter"));
  Result by_period = run({PERFMON, "annotate", "-i", file, "--sort", "period"});
  ASSERT_EQ(by_period.exit_code, 0) << by_period.err;
  std::vector<std::string> top_lines;  // the rows of the function's own lines, in order
  for (const std::string& line : lines_of(by_period.out))
    if (std::regex_search(line, std::regex(R"(^[ 0-9.]{18}  worker\.cpp:)"))) top_lines.push_back(line);
  ASSERT_GE(top_lines.size(), 3u) << by_period.out;
  EXPECT_NE(top_lines[0].find("annotate: hot"), std::string::npos) << by_period.out;
  EXPECT_NE(top_lines[1].find("annotate: quarter"), std::string::npos) << by_period.out;
}

// -M intel (perf annotate's --disassembler-style): the same instructions and samples in Intel's
// syntax, as objdump -M intel writes it: no % before registers, the destination first.
TEST_F(CliAnnotate, IntelSyntaxOnRequest) {
#if !defined(__x86_64__)
  GTEST_SKIP() << "AT&T and Intel syntax are x86's; this machine is not x86-64";
#else
  const std::string file = record_annotated(WORKER, 400);
  const nlohmann::json att = annotation({"-i", file});
  const nlohmann::json intel = annotation({"-i", file, "-M", "intel"});
  expect_annotated(intel, 400);
  ASSERT_EQ(att["instructions"].size(), intel["instructions"].size());
  std::size_t registers = 0;
  for (std::size_t i = 0; i < att["instructions"].size(); ++i) {
    const std::string a = att["instructions"][i]["text"], b = intel["instructions"][i]["text"];
    EXPECT_EQ(att["instructions"][i]["samples"], intel["instructions"][i]["samples"]);
    EXPECT_EQ(b.find('%'), std::string::npos) << b;
    if (a.find("%r") != std::string::npos) ++registers;
    if (a.starts_with("mov    %rsp,%rbp")) {
      EXPECT_EQ(b, "mov    rbp, rsp");
    }
  }
  EXPECT_GT(registers, 0u);
  Result bad = run({PERFMON, "annotate", "-i", file, "-M", "arm"});
  EXPECT_EQ(bad.exit_code, 129);
  EXPECT_NE(bad.err.find("-M takes att or intel, not 'arm'."), std::string::npos) << bad.err;
#endif
}

// -l (perf annotate's --print-line): each source line's share first, heaviest first, the same
// lines and shares as perf annotate -l prints on the same file.
TEST_F(CliAnnotate, PrintLineSummarySortsTheSourceLines) {
  const std::string file = record_annotated(WORKER, 400);
  const Result ours = run({PERFMON, "annotate", "-i", file, "-l", "perfmon_annotated"});
  ASSERT_EQ(ours.exit_code, 0) << ours.err;
  auto summary = [](const std::string& text) {  // the "  80.00 file:line" lines after the dashes
    const std::regex share(R"(^\s+\d+\.\d\d \S+:\d+$)");
    std::vector<std::string> shares;
    bool in = false;
    for (const std::string& line : lines_of(text)) {
      if (line.starts_with("-----")) {
        in = true;
      } else if (in && std::regex_match(line, share)) {
        shares.push_back(line);
      } else if (in && !line.empty()) {
        break;
      }
    }
    return shares;
  };
  // An optimized build samples the hot and the quarter line's own instructions (80 and 20); an
  // unoptimized one, the helper's line inside either (100): the innermost line, as perf's srcline.
  const std::vector<std::string> shares = summary(ours.out);
  ASSERT_FALSE(shares.empty()) << ours.out;
  double total = 0;
  for (const std::string& share : shares) total += std::stod(share);
  EXPECT_NEAR(total, 100.0, 0.05) << ours.out;
  if (shares.size() == 2) {
    EXPECT_TRUE(shares[0].starts_with("   80.00 worker.cpp:")) << ours.out;
    EXPECT_TRUE(shares[1].starts_with("   20.00 worker.cpp:")) << ours.out;
  } else {
    EXPECT_EQ(shares, std::vector<std::string>{shares[0]}) << ours.out;
    EXPECT_TRUE(shares[0].starts_with("  100.00 worker.cpp:")) << ours.out;
  }
  EXPECT_TRUE(ours.out.starts_with("\nSorted summary for file " + std::string(WORKER) + "\n")) << ours.out;
  if (access("/usr/bin/perf", X_OK) != 0) GTEST_SKIP() << "perf is missing (scripts/install-deps installs it)";
  const Result perf = run({"/usr/bin/perf", "annotate", "-i", file, "-l", "--stdio", "perfmon_annotated"});
  ASSERT_EQ(perf.exit_code, 0) << perf.err;
  EXPECT_EQ(shares, summary(perf.out)) << perf.out;
}

// perf's own file, and perf annotate's percent on each instruction: the same.
TEST_F(CliAnnotate, PerfsFileGivesPerfAnnotatesPercents) {
  const std::string file = (dir_ / "perf.data").string();
  Result recorded = run({"/usr/bin/perf", "record", "-q", "-e", "syscalls:sys_enter_getppid", "-c", "1", "-o", file,
                         "--", WORKER, "annotate", "1000"});
  ASSERT_EQ(recorded.exit_code, 0) << recorded.err;
  expect_annotated(annotation({"-i", file, "perfmon_annotated"}), 1000);
  Result perf = run({"/usr/bin/perf", "annotate", "-i", file, "--stdio", "perfmon_annotated"});
  ASSERT_EQ(perf.exit_code, 0) << perf.err;
  std::map<std::string, double> perf_percents;  // "   80.00 :   3435:   add ..." by address
  const std::regex row(R"(^\s+(\d+\.\d+) :\s+([0-9a-f]+):)");
  for (const std::string& line : lines_of(perf.out)) {
    std::smatch m;
    if (std::regex_search(line, m, row) && std::stod(m[1]) > 0) perf_percents["0x" + m[2].str()] = std::stod(m[1]);
  }
  ASSERT_EQ(perf_percents.size(), 2u) << perf.out;
  std::map<std::string, double> ours;
  const nlohmann::json a = annotation({"-i", file});
  for (const nlohmann::json& instruction : a["instructions"])
    if (instruction["samples"] > 0) ours[instruction["address"]] = instruction["percent"];
  ASSERT_EQ(ours.size(), 2u);
  for (const auto& [address, share] : perf_percents) EXPECT_NEAR(ours[address], share, 0.005) << address;
}

// A function in a shared library: libc's syscall(), which the worker's tree calls 4N times.
TEST_F(CliAnnotate, AFunctionInASharedLibrary) {
  const std::string file = (dir_ / "perf.data").string();
  Result r = run({PERFMON, "record", "-q", "-e", "syscalls:sys_enter_getppid", "-c", "1", "-o", file, "--", WORKER,
                  "tree-getppid", "250"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json a = annotation({"-i", file, "syscall"});
  EXPECT_EQ(a["samples"], 1000);
  EXPECT_NE(a["dso"].get<std::string>().find("libc.so"), std::string::npos) << a["dso"];
  const nlohmann::json* hottest = hottest_instruction(a);
  ASSERT_NE(hottest, nullptr);
  EXPECT_EQ((*hottest)["samples"], 1000);
#if defined(__x86_64__)
  const auto& instructions = a["instructions"];
  for (std::size_t i = 1; i < instructions.size(); ++i)
    if (instructions[i]["samples"] == 1000) {
      EXPECT_EQ(instructions[i - 1]["text"], "syscall");
    }
#endif
}

// A stripped program: its functions and lines come from its separate debug file, its code from itself.
TEST_F(CliAnnotate, AStrippedProgramWithItsDebugFile) {
  const std::string program = stripped_copy_with_debug_file(WORKER, dir_.string(), "program");
  const std::string file = record_annotated(program, 1000);
  expect_annotated(annotation({"-i", file, "perfmon_annotated"}), 1000);
  // Without the debug file, no function is named there: nothing of the program to annotate.
  fs::remove(dir_ / "program.debug");
  Result r = run({PERFMON, "annotate", "-i", file, "perfmon_annotated"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("perfmon annotate: no samples of 'perfmon_annotated' in " + file +
                       ": syscalls:sys_enter_getppid's samples land where no symbol names a function (in a stripped "
                       "file whose debug file is not installed)."),
            std::string::npos)
      << r.err;
}

// A recording of another machine: its files found under --symfs, by their recorded paths.
TEST_F(CliAnnotate, TheRecordingsFilesUnderSymfs) {
  const fs::path program = dir_ / "program";
  fs::copy_file(WORKER, program);
  const std::string file = record_annotated(program.string(), 400);
  const fs::path root = dir_ / "root";
  fs::create_directories(root / program.parent_path().relative_path());
  fs::rename(program, root / program.relative_path());
  expect_annotated(annotation({"-i", file, "--symfs", root.string(), "perfmon_annotated"}), 400);
  EXPECT_EQ(annotation({"-i", file, "--symfs", root.string()})["dso"], program.string());
}

// A loop on one line sampled by the clock: that line, and an instruction of it, carry the most.
TEST_F(CliAnnotate, ALoopOnOneLineIsTheHottestOnCpuClock) {
  const std::string file = (dir_ / "perf.data").string();
  Result r =
      run({PERFMON, "record", "-q", "-e", "cpu-clock:u", "-F", "4000", "-o", file, "--", WORKER, "tree", "30000000"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json a = annotation({"-i", file, "-e", "cpu-clock:u", "perfmon_leaf"});
  ASSERT_GT(a["samples"].get<long>(), 20) << "too few samples to tell lines apart";
  const nlohmann::json* hottest_line = nullptr;
  for (const nlohmann::json& line : a["lines"])
    if (hottest_line == nullptr || line["samples"] > (*hottest_line)["samples"]) hottest_line = &line;
  ASSERT_NE(hottest_line, nullptr);
  EXPECT_NE((*hottest_line)["text"].get<std::string>().find("sink = sink + i"), std::string::npos)
      << a["lines"].dump(1);
  EXPECT_GT((*hottest_line)["percent"].get<double>(), 50.0);
  const nlohmann::json* hottest = hottest_instruction(a);
  const nlohmann::json& own = (*hottest_line)["instructions"];
  EXPECT_NE(std::find(own.begin(), own.end(), (*hottest)["address"]), own.end());
}

TEST_F(CliAnnotate, WhatCannotBeAnnotatedIsOneSentence) {
  const std::string file = record_annotated(WORKER, 10);
  struct Case {
    std::vector<std::string> args;
    std::string says;
  };
  for (const Case& c : std::vector<Case>{
           {{"-i", file, "no_such_function"},
            "perfmon annotate: no samples of 'no_such_function' in " + file +
                ": syscalls:sys_enter_getppid's heaviest are perfmon_annotated (perfmon-test-worker)."},
           {{"-i", file, "-e", "cycles"},
            "perfmon annotate: the file has no event 'cycles'; its events are syscalls:sys_enter_getppid (choose one "
            "with -e)."},
           {{"-i", file, "--dso", "libm.so.6"},
            "perfmon annotate: no samples in " + file +
                " landed in a function of 'libm.so.6'; there is nothing to annotate."},
           {{"-i", file, "--sort", "heat"}, "--sort takes source or period, not 'heat'"},
           {{"-i", file, "a", "b"}, "perfmon annotate shows one function: give one SYMBOL"},
           {{"-i", (dir_ / "missing.data").string()}, "missing.data"},
       }) {
    std::vector<std::string> argv = {PERFMON, "annotate"};
    argv.insert(argv.end(), c.args.begin(), c.args.end());
    Result r = run(argv);
    EXPECT_NE(r.exit_code, 0) << c.says;
    EXPECT_NE(r.err.find(c.says), std::string::npos) << r.err;
    EXPECT_EQ(r.out, "");
  }
}

// A program rebuilt after its recording (here: another program copied over it, another build id)
// is never read for the recording's samples: report and annotate say the file changed and leave
// its samples unnamed, rather than name them by code that never ran.
TEST_F(CliAnnotate, AProgramChangedSinceTheRecordingIsSaidNotRead) {
  const std::string program = (dir_ / "worker").string();
  fs::copy_file(WORKER, program);
  const std::string file = record_annotated(program, 400);
  fs::remove(program);
  fs::copy_file(WORKER_WITHOUT_FRAME_POINTERS, program);  // built apart: its own build id
  for (const std::vector<std::string>& command :
       {std::vector<std::string>{PERFMON, "report", "-i", file, "--sort", "dso,sym"},
        std::vector<std::string>{PERFMON, "annotate", "-i", file, "perfmon_annotated"}}) {
    Result r = run(command);
    EXPECT_NE(r.err.find("'" + program + "' changed since the recording (build id "), std::string::npos)
        << command[1] << ": " << r.err;
    EXPECT_EQ(r.out.find("perfmon_annotated"), std::string::npos) << command[1] << " named the new code:\n" << r.out;
  }
}

// --symfs is a directory the recording's files lie under: anything else is refused, not ignored.
TEST_F(CliAnnotate, SymfsMustBeADirectory) {
  const std::string file = record_annotated(WORKER, 4);
  for (const std::string& symfs : {std::string("/nonexistent"), file}) {
    Result r = run({PERFMON, "annotate", "-i", file, "--symfs", symfs, "perfmon_annotated"});
    EXPECT_EQ(r.exit_code, 129) << r.err;
    EXPECT_NE(r.err.find("--symfs takes the directory the recording's files lie under; '" + symfs + "' is not one"),
              std::string::npos)
        << r.err;
    EXPECT_EQ(r.out, "");
  }
}

}  // namespace
}  // namespace perfmon::testing
