// SPDX-License-Identifier: Apache-2.0
// perfmon report as a user runs it: exact shares from tracepoint samples of a known call tree, the
// same top functions and shares as perf report on a file perf recorded, collapsed stacks, its
// inputs and outputs refused or read as they should be, and the pprof file go tool pprof reads.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "process.hpp"
#include "report_fixture.hpp"

namespace perfmon::testing {
namespace {

TEST_F(Report, SharesOfACallTreeAreExact) {
  record_call_tree();
  // Folded stacks: the command, then the frames from main outwards; 300 and 100 samples exactly.
  const std::string folded = report({"--folded"});
  std::uint64_t under_a = 0, under_b = 0;
  std::istringstream lines(folded);
  for (std::string line; std::getline(lines, line);) {
    ASSERT_TRUE(line.starts_with("perfmon-test-wo;")) << line;
    const std::uint64_t samples = std::stoull(line.substr(line.rfind(' ') + 1));
    if (line.find(";main;perfmon_branch_a;") != std::string::npos) under_a += samples;
    if (line.find(";main;perfmon_branch_b;") != std::string::npos) under_b += samples;
  }
  EXPECT_EQ(under_a, 300u) << folded;
  EXPECT_EQ(under_b, 100u) << folded;

  // JSON: one event of 400 samples, all in libc's syscall(), its chains 75% and 25%.
  const auto json = nlohmann::json::parse(report({"--json", "-g", "--sort", "sym"}));
  ASSERT_EQ(json["events"].size(), 1u);
  const auto& event = json["events"][0];
  EXPECT_EQ(event["event"], "syscalls:sys_enter_getppid");
  EXPECT_EQ(event["samples"], 400);
  const auto& top = event["rows"][0];
  EXPECT_EQ(top["samples"], 400) << top;
  ASSERT_EQ(top["callchains"].size(), 2u) << top;
  EXPECT_DOUBLE_EQ(top["callchains"][0]["overhead"].get<double>(), 75.0);
  EXPECT_EQ(top["callchains"][0]["frames"][1], "perfmon_branch_a");  // leaf first
  EXPECT_DOUBLE_EQ(top["callchains"][1]["overhead"].get<double>(), 25.0);
  EXPECT_EQ(top["callchains"][1]["frames"][1], "perfmon_branch_b");

  // The table, as perf prints it, with the chains under -g.
  const std::string table = report({"-g"});
  EXPECT_NE(table.find("# Samples: 400  of event 'syscalls:sys_enter_getppid'"), std::string::npos) << table;
  EXPECT_NE(table.find("|--75.00%--syscall"), std::string::npos) << table;
  EXPECT_NE(table.find(" --25.00%--syscall"), std::string::npos) << table;
}

// --call-graph dwarf on a program built without frame pointers: each sample copies the user stack
// and registers, and the report unwinds them by CFI (libdw) to the exact 300/100 split under
// main; perf report reads the same file to the same split.
TEST_F(Report, DwarfCallGraphsUnwindCodeWithoutFramePointers) {
  Result r = run({PERFMON, "record", "-q", "-m", "1024", "--call-graph", "dwarf", "-e", "syscalls:sys_enter_getppid",
                  "-c", "1", "-o", file_, "--", WORKER_WITHOUT_FRAME_POINTERS, "tree-getppid", "100"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string folded = report({"--folded"});
  const auto [under_a, under_b] = samples_under_branches(folded);
  EXPECT_EQ(under_a, 300u) << folded;
  EXPECT_EQ(under_b, 100u) << folded;

  if (access("/usr/bin/perf", X_OK) != 0) GTEST_SKIP() << "Debian's linux-perf is not installed (/usr/bin/perf)";
  const Result perf = run({"/usr/bin/perf", "report", "-i", file_, "--stdio", "--no-children"});
  ASSERT_EQ(perf.exit_code, 0) << perf.err;
  EXPECT_NE(perf.out.find("|--75.00%--perfmon_branch_a"), std::string::npos) << perf.out;
  EXPECT_NE(perf.out.find(" --25.00%--perfmon_branch_b"), std::string::npos) << perf.out;
}

// A process that execs another program maps other files where the first one's were (setarch -R:
// no address randomization, both programs at the same base): the samples after the exec are
// unwound by the new program's CFI, not by what the first one's left behind. (Recorded with
// inherit, one ring per CPU: the exec's COMM and MMAP2 records may sit in another CPU's ring than
// the samples that follow them, and are placed before them by time; in file order, one run in six
// misplaced a part of the samples.)
TEST_F(Report, DwarfStacksAfterAnExecAreUnwoundByTheNewProgram) {
  if (access("/usr/bin/setarch", X_OK) != 0) GTEST_SKIP() << "setarch (util-linux) is not installed";
  Result r = run({PERFMON,
                  "record",
                  "-q",
                  "-m",
                  "1024",
                  "--call-graph",
                  "dwarf",
                  "-e",
                  "syscalls:sys_enter_getppid",
                  "-c",
                  "1",
                  "-o",
                  file_,
                  "--",
                  "/usr/bin/setarch",
                  "-R",
                  WORKER,
                  "exec-after",
                  "100",
                  WORKER_WITHOUT_FRAME_POINTERS,
                  "tree-getppid",
                  "100"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string folded = report({"--folded"});
  const auto [under_a, under_b] = samples_under_branches(folded);
  EXPECT_EQ(under_a, 600u) << folded;  // 300 before the exec, 300 after
  EXPECT_EQ(under_b, 200u) << folded;
}

// Frame pointers cannot walk the same program: its chains lose callers (what dwarf is for).
TEST_F(Report, FramePointerChainsOfTheSameProgramAreIncomplete) {
  Result r = run({PERFMON, "record", "-q", "-g", "-e", "syscalls:sys_enter_getppid", "-c", "1", "-o", file_, "--",
                  WORKER_WITHOUT_FRAME_POINTERS, "tree-getppid", "100"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string folded = report({"--folded"});
  EXPECT_NE(folded.find("syscall"), std::string::npos) << folded;
  EXPECT_EQ(folded.find(";main;perfmon_branch_a;perfmon_getppid_leaf;syscall "), std::string::npos) << folded;
}

// A function inlined into its caller joins the stacks under it as "f (inlined)", read from the
// worker's DWARF; --no-inline leaves it out.
TEST_F(Report, InlinedFunctionsJoinTheStacks) {
  Result r = run({PERFMON, "record", "-q", "-m", "1024", "--call-graph", "dwarf", "-e", "syscalls:sys_enter_getppid",
                  "-c", "1", "-o", file_, "--", WORKER_WITHOUT_FRAME_POINTERS, "inline-getppid", "50"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string folded = report({"--folded"});
  EXPECT_NE(folded.find(";main;perfmon_inline_caller;perfmon_inlined_getppid (inlined);syscall 50\n"),
            std::string::npos)
      << folded;
  const std::string plain = report({"--folded", "--no-inline"});
  EXPECT_NE(plain.find(";main;perfmon_inline_caller;syscall 50\n"), std::string::npos) << plain;
  const std::string table = report({"-g"});
  EXPECT_NE(table.find("perfmon_inlined_getppid (inlined)\n               perfmon_inline_caller\n"), std::string::npos)
      << table;
}

// Code inlined into inlined code: every level joins the stack, outermost first (dwarf_getscopes,
// which perfmon used before, names only the innermost).
TEST_F(Report, FunctionsInlinedIntoInlinedOnesJoinTheStacksAtEveryLevel) {
  Result r = run({PERFMON, "record", "-q", "-m", "1024", "--call-graph", "dwarf", "-e", "syscalls:sys_enter_getppid",
                  "-c", "1", "-o", file_, "--", WORKER_WITHOUT_FRAME_POINTERS, "inline-twice", "50"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string folded = report({"--folded"});
  EXPECT_NE(folded.find(";main;perfmon_inline_twice_caller;perfmon_inlined_twice (inlined);perfmon_inlined_getppid "
                        "(inlined);syscall 50\n"),
            std::string::npos)
      << folded;
}

// The rows of a sample table's lines ("    95.95%  worker.cpp:48"), at or above 1%, as a set: the
// order of rows of equal share is not perf's concern, nor ours.
std::multiset<std::string> rows_above_one_percent(const std::string& table) {
  std::multiset<std::string> rows;
  std::istringstream lines(table);
  for (std::string line; std::getline(lines, line);)
    if (!line.empty() && line[0] != '#' && line.find('%') != std::string::npos && std::stod(line) >= 1.0)
      rows.insert(line);
  return rows;
}

// --sort srcline on a file perf recorded: the same rows as perf report's (which asks addr2line;
// perfmon reads DWARF with libdw in process).
TEST_F(Report, SourceLinesAreThoseOfPerfReport) {
  if (!have_perf()) GTEST_SKIP() << "Debian's linux-perf is not installed (/usr/bin/perf)";
  const Result perf = perf_on_recorded_tree("30000000", "report", {"--stdio", "--sort", "sym,srcline"});
  const std::multiset<std::string> theirs = rows_above_one_percent(perf.out);
  EXPECT_EQ(rows_above_one_percent(report({"--sort", "sym,srcline"})), theirs) << perf.out;
  bool named_a_line = false;
  for (const std::string& row : theirs)
    named_a_line |= row.find("perfmon_leaf") != std::string::npos && row.find("worker.cpp:") != std::string::npos;
  EXPECT_TRUE(named_a_line) << perf.out;
}

TEST_F(Report, SpinningFunctionHasNearlyAllSamples) {
  ASSERT_EQ(run({PERFMON, "record", "-q", "-e", "cpu-clock", "-o", file_, "--", WORKER, "loop", "400000000"}).exit_code,
            0);
  const std::map<std::string, double> shares = top_symbols(report({"--sort", "sym"}));
  ASSERT_TRUE(shares.contains("perfmon_spin")) << report({"--sort", "sym"});
  EXPECT_GE(shares.at("perfmon_spin"), 90.0);
}

// A profile with many distinct, varied stacks, made here: the C++ compiler sampled with call chains
// while it instantiates templates (thousands of distinct stacks through cc1plus, libc and the
// kernel; several processes: g++, cc1plus, as).
constexpr const char* kTemplates = R"(#include <algorithm>
#include <map>
#include <string>
#include <vector>
template <int N>
struct Level {
  static int value(std::map<int, std::string>& names) {
    names[N] = std::to_string(N);
    return Level<N - 1>::value(names) + static_cast<int>(names.size() % 7);
  }
};
template <>
struct Level<0> {
  static int value(std::map<int, std::string>&) { return 0; }
};
int varied(std::vector<std::string> words) {
  std::map<int, std::string> names;
  std::sort(words.begin(), words.end());
  return Level<80>::value(names) + static_cast<int>(words.size());
}
)";

// Read with one thread or several (in shares, each merged into the one before), the report is the
// same to the byte, in every shape; and its table is perf report's.
TEST_F(Report, ThreadsGiveTheSameReportOfVariedStacks) {
  const std::string source = (dir_ / "templates.cpp").string();
  std::ofstream(source) << kTemplates;
  Result recorded = run({PERFMON, "record", "-q", "-g", "-e", "cpu-clock", "-c", "100000", "-o", file_, "--",
                         "/usr/bin/g++", "-std=c++20", "-O1", "-c", source, "-o", (dir_ / "templates.o").string()});
  ASSERT_EQ(recorded.exit_code, 0) << recorded.err;
  const std::string folded = report({"--folded"});
  const auto stacks = std::count(folded.begin(), folded.end(), '\n');
  ASSERT_GT(stacks, 1000) << "too few distinct stacks to tell anything";
  for (const std::vector<std::string>& shape :
       std::vector<std::vector<std::string>>{{"--sort", "comm,dso,sym"},
                                             {"-g"},
                                             {"--folded"},
                                             {"--json", "-g"},
                                             {"--sort", "dso,sym", "-g", "--no-inline"}}) {
    std::vector<std::string> one = shape, two = shape, five = shape;
    one.insert(one.end(), {"--threads", "1"});
    two.insert(two.end(), {"--threads", "2"});
    five.insert(five.end(), {"--threads", "5"});
    const std::string whole = report(one);
    EXPECT_EQ(report(two), whole) << shape.front();
    EXPECT_EQ(report(five), whole) << shape.front();
  }
  if (!have_perf()) GTEST_SKIP() << "Debian's linux-perf is not installed (/usr/bin/perf): not compared with it";
  Result perf =
      run({"/usr/bin/perf", "report", "-i", file_, "--stdio", "--no-children", "--sort", "comm,dso,sym", "-g", "none"});
  ASSERT_EQ(perf.exit_code, 0) << perf.err;
  // Each row of 0.3% or more, as printed ("cc1plus cc1plus [.] push_to_top_level" -> "2.50%"):
  // rows of equal weight may come in another order.
  auto rows = [](const std::string& table) {
    std::map<std::string, std::string> shares;
    std::istringstream lines(table);
    for (std::string line; std::getline(lines, line);) {
      std::istringstream words(line);
      std::string share, command, dso, mark, symbol;
      if (line.empty() || line[0] == '#' || !(words >> share >> command >> dso >> mark) || !std::getline(words, symbol))
        continue;
      if (std::stod(share) >= 0.3) shares[command + " " + dso + " " + mark + symbol] = share;
    }
    return shares;
  };
  const std::map<std::string, std::string> theirs = rows(perf.out);
  ASSERT_GT(theirs.size(), 10u) << perf.out;
  const std::map<std::string, std::string> ours = rows(report({"--sort", "comm,dso,sym", "--threads", "2"}));
  for (const auto& [row, share] : theirs) EXPECT_EQ(ours.contains(row) ? ours.at(row) : "none", share) << row;
  for (const auto& [row, share] : ours) EXPECT_TRUE(theirs.contains(row)) << row << " " << share;
}

// A file perf recorded: perfmon report finds the same functions above 1% as perf report, each
// within a point of perf's share.
TEST_F(Report, AgreesWithPerfReportOnAFilePerfRecorded) {
  if (!have_perf()) GTEST_SKIP() << "Debian's linux-perf is not installed (/usr/bin/perf)";
  const Result perf = perf_on_recorded_tree("100000000", "report", {"--stdio", "--sort", "sym"});
  const std::map<std::string, double> theirs = top_symbols(perf.out), ours = top_symbols(report({"--sort", "sym"}));
  ASSERT_TRUE(theirs.contains("perfmon_leaf")) << perf.out;
  for (const auto& [symbol, share] : theirs) {
    ASSERT_TRUE(ours.contains(symbol)) << symbol << " is missing from perfmon report";
    EXPECT_NEAR(ours.at(symbol), share, 1.0) << symbol;
  }
}

TEST_F(Report, EventToDrawMustBeInTheFile) {
  record_call_tree();
  Result r = run({PERFMON, "report", "-i", file_, "--folded", "-e", "cycles"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("the file has no event 'cycles'; its events are syscalls:sys_enter_getppid"), std::string::npos)
      << r.err;
  EXPECT_EQ(r.out, "");
}

TEST_F(Report, TruncatedFileNamesTheOffset) {
  record_call_tree();
  const std::string whole = read_file(file_);
  const std::string cut = (dir_ / "cut.data").string();
  std::ofstream(cut, std::ios::binary) << whole.substr(0, whole.size() / 2);
  Result r = run({PERFMON, "report", "-i", cut});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("offset"), std::string::npos) << r.err;
  EXPECT_EQ(r.out, "");
}

// A device given with -i is refused, not read; a FIFO is read when it brings a perf.data file.
// (A private device node, never the system's.)
TEST_F(Report, ADeviceIsRefusedAndAFifoIsRead) {
  const std::string zero = (dir_ / "zero").string();
  if (mknod(zero.c_str(), S_IFCHR | 0644, makedev(1, 5)) == 0) {
    for (const char* command : {"script", "report"}) {
      Result r = run({PERFMON, command, "-i", zero});
      EXPECT_EQ(r.exit_code, 1) << r.err;
      EXPECT_NE(r.err.find("'" + zero + "' is a device, not a perf.data file"), std::string::npos) << r.err;
    }
  }
  record_call_tree();
  const std::string fifo = (dir_ / "fifo").string();
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  std::thread writer([&] { std::ofstream(fifo, std::ios::binary) << read_file(file_); });
  Result r = run({PERFMON, "script", "-i", fifo});
  writer.join();
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("syscalls:sys_enter_getppid"), std::string::npos);
}

// The vDSO is no file: its functions are named from perfmon's own copy of it, as perf names them
// (the worker's spin loop reads the clock through it, where the clock source allows).
TEST_F(Report, VdsoFunctionsAreNamed) {
  Result recorded = run({PERFMON, "record", "-q", "-e", "cpu-clock:u", "-o", file_, "--", WORKER, "spin", "300"});
  ASSERT_EQ(recorded.exit_code, 0) << recorded.err;
  Result r = run({PERFMON, "report", "-i", file_, "--sort", "dso,sym"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  int vdso_rows = 0;
  for (const std::string& line : lines_of(r.out)) {
    if (line.find(" [vdso] ") == std::string::npos) continue;
    ++vdso_rows;
    EXPECT_EQ(line.find("[.] 0x"), std::string::npos) << "an unnamed vDSO address: " << line;
    EXPECT_NE(line.find("[.] __vdso_"), std::string::npos) << line;
  }
  if (vdso_rows == 0) GTEST_SKIP() << "this machine's clock is not read through the vDSO; nothing to name";
}

// A recording names files, and whoever made it chose their paths: a FIFO or a device named there,
// as the program or as its .gnu_debuglink, is passed over, never opened and waited on.
TEST_F(Report, FifosNamedByARecordingDoNotHangIt) {
  const fs::path program = stripped_copy_with_debug_file(WORKER, dir_.string(), "program");
  Result recorded = run({PERFMON, "record", "-q", "-g", "-e", "syscalls:sys_enter_getppid", "-c", "1", "-o", file_,
                         "--", program.string(), "tree-getppid", "10"});
  ASSERT_EQ(recorded.exit_code, 0) << recorded.err;
  // The debug file becomes a FIFO, then the program too.
  for (const fs::path& replaced : {dir_ / "program.debug", program}) {
    SCOPED_TRACE(replaced);
    fs::remove(replaced);
    ASSERT_EQ(mkfifo(replaced.c_str(), 0644), 0);
    for (std::vector<std::string> args :
         {std::vector<std::string>{"report", "--sort", "sym,srcline", "-g"}, std::vector<std::string>{"script"}}) {
      args.insert(args.begin(), {"/usr/bin/timeout", "60", PERFMON});
      args.insert(args.end(), {"-i", file_});
      Result r = run(args);
      EXPECT_EQ(r.exit_code, 0) << args[3] << ": " << r.err;
    }
  }
}

// Output that did not reach its reader fails the command: standard output on a full disk (a
// private node like /dev/full) ends in one sentence and status 1, for every command that prints.
TEST_F(Report, OutputThatCannotBeWrittenFailsTheCommand) {
  const std::string full = (dir_ / "full").string();
  if (mknod(full.c_str(), S_IFCHR | 0666, makedev(1, 7)) != 0)
    GTEST_SKIP() << "cannot make a device node here (needs root): " << strerror(errno);
  record_call_tree();
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"script", "-i", file_}, std::vector<std::string>{"report", "-i", file_},
        std::vector<std::string>{"report", "--folded", "-i", file_}, std::vector<std::string>{"list"},
        std::vector<std::string>{"info"}, std::vector<std::string>{"decode", "0x4300c0"},
        std::vector<std::string>{"annotate", "-i", file_}, std::vector<std::string>{"top", "--stdio", "-d", "0.2"}}) {
    SCOPED_TRACE(args[0]);
    std::vector<std::string> argv = {"/bin/sh", "-c", "out=$1; shift; exec \"$@\" > \"$out\"", "sh", full, PERFMON};
    argv.insert(argv.end(), args.begin(), args.end());
    Result r = run(argv);
    EXPECT_EQ(r.exit_code, 1) << r.err;
    EXPECT_NE(r.err.find("; free some space or write elsewhere"), std::string::npos) << r.err;
  }
}

// Running out of memory is one sentence and status 1, never "terminate called". (The sanitizers
// reserve terabytes of address space, so there the limit cannot be set.) 12 MB of address space:
// the program starts in less than 10 and reads this 10 MB file in less than 20.
TEST_F(Report, OutOfMemoryIsOneSentence) {
#if defined(__SANITIZE_ADDRESS__)
  GTEST_SKIP() << "AddressSanitizer reserves more address space than the limit this test sets";
#endif
  Result recorded = run({PERFMON, "record", "-q", "-g", "-e", "syscalls:sys_enter_getppid", "-c", "1", "-o", file_,
                         "--", WORKER, "getppid", "100000"});
  ASSERT_EQ(recorded.exit_code, 0) << recorded.err;
  Result r = run({"/bin/sh", "-c", "ulimit -v 12000 && exec \"$0\" report -g -i \"$1\"", PERFMON, file_});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_EQ(r.err,
            "perfmon report: out of memory; raise the memory limit (ulimit -v, the cgroup's) or give it a smaller "
            "input.\n");
}

// The rows of go tool pprof's -top ("flat flat% sum% cum cum% name"), by function name.
struct PprofRow {
  double flat = 0, flat_share = 0, cum = 0;
};
std::map<std::string, PprofRow> pprof_top(const std::string& text) {
  std::map<std::string, PprofRow> rows;
  std::istringstream lines(text);
  bool table = false;
  for (std::string line; std::getline(lines, line);) {
    std::istringstream words(line);
    std::string flat, flat_share, sum, cum, cum_share, name;
    if (!(words >> flat >> flat_share >> sum >> cum >> cum_share)) continue;
    if (flat == "flat") {
      table = true;
      continue;
    }
    std::getline(words >> std::ws, name);
    if (table) rows[name] = {std::stod(flat), std::stod(flat_share), std::stod(cum)};
  }
  return rows;
}

// report --pprof writes pprof's format, which Debian's go tool pprof reads: the same functions at
// the same shares as perfmon report's rows (the samples' leaves), the call tree's 300/100 split in
// the cumulative counts, and the comm label. The encoding itself is unit-tested field by field.
TEST_F(Report, PprofFileIsReadByGoToolPprofWithTheReportsShares) {
  record_call_tree();
  const std::string profile = (dir_ / "profile.pb.gz").string();
  Result written = run({PERFMON, "report", "-i", file_, "--pprof", profile});
  ASSERT_EQ(written.exit_code, 0) << written.err;
  const std::string bytes = read_file(profile);
  ASSERT_GE(bytes.size(), 2u);
  EXPECT_EQ(bytes.substr(0, 2), "\x1f\x8b") << "gzipped";

  if (access("/usr/bin/go", X_OK) != 0) GTEST_SKIP() << "Debian's golang-go is not installed (/usr/bin/go)";
  const std::string index = "-sample_index=syscalls:sys_enter_getppid_sample";
  Result top = run({"/usr/bin/go", "tool", "pprof", "-symbolize=none", "-top", "-nodecount=1000", index, profile});
  ASSERT_EQ(top.exit_code, 0) << top.err;
  const std::map<std::string, PprofRow> rows = pprof_top(top.out);
  // perfmon report --sort sym: "    75.00%  [.] perfmon_leaf"
  std::istringstream table(report({"--sort", "sym"}));
  std::size_t compared = 0;
  for (std::string line; std::getline(table, line);) {
    if (line.empty() || line[0] == '#' || line.find('%') == std::string::npos) continue;
    const double share = std::stod(line);
    const std::string name = line.substr(line.find("] ") + 2);
    ASSERT_TRUE(rows.count(name)) << name << " is not in pprof's top:\n" << top.out;
    EXPECT_NEAR(rows.at(name).flat_share, share, 0.01) << name << "\n" << top.out;
    ++compared;
  }
  EXPECT_GT(compared, 0u);
  ASSERT_TRUE(rows.count("perfmon_branch_a") && rows.count("perfmon_branch_b") && rows.count("main")) << top.out;
  EXPECT_EQ(rows.at("main").cum, 400);
  EXPECT_EQ(rows.at("perfmon_branch_a").cum, 300);
  EXPECT_EQ(rows.at("perfmon_branch_b").cum, 100);

  Result tags = run({"/usr/bin/go", "tool", "pprof", "-symbolize=none", "-tags", index, profile});
  ASSERT_EQ(tags.exit_code, 0) << tags.err;
  EXPECT_NE(tags.out.find("comm: Total 400"), std::string::npos) << tags.out;
  EXPECT_NE(tags.out.find("perfmon-test-wo"), std::string::npos) << tags.out;
  EXPECT_NE(tags.out.find("pid: Total 400"), std::string::npos) << tags.out;

  // The worker's mapping, with the build id the recording kept (readelf reads the file's).
  Result raw = run({"/usr/bin/go", "tool", "pprof", "-symbolize=none", "-raw", profile});
  ASSERT_EQ(raw.exit_code, 0) << raw.err;
  Result notes = run({"/usr/bin/readelf", "-n", WORKER});
  const std::size_t id_at = notes.out.find("Build ID: ");
  ASSERT_NE(id_at, std::string::npos) << notes.out;
  const std::string id = notes.out.substr(id_at + 10, 40);
  EXPECT_NE(raw.out.find(std::string(WORKER) + " " + id + " [FN]"), std::string::npos) << raw.out;
}

}  // namespace
}  // namespace perfmon::testing
