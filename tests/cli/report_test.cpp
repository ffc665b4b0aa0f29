// perfmon report as a user runs it: exact shares from tracepoint samples of a known call tree, the
// same top functions and shares as perf report on a file perf recorded, collapsed stacks, and the
// flame graph looked at in a browser (headless Chromium): drawn, zoomed by a click, searched.
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

namespace perfmon::testing {
namespace {

namespace fs = std::filesystem;

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

class Report : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/perfmon-report-XXXXXX";
    dir_ = mkdtemp(pattern);
    file_ = (dir_ / "perf.data").string();
  }
  void TearDown() override {
    if (!dir_.empty()) fs::remove_all(dir_);
  }
  // The worker's call tree sampled on every getppid: 300 calls under perfmon_branch_a, 100 under b.
  void record_call_tree() const {
    Result r = run({PERFMON, "record", "-q", "-g", "-e", "syscalls:sys_enter_getppid", "-c", "1", "-o", file_, "--",
                    WORKER, "tree-getppid", "100"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }
  std::string report(std::vector<std::string> args) const {
    args.insert(args.begin(), {PERFMON, "report", "-i", file_});
    Result r = run(args);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.err, "");
    return r.out;
  }

  // Debian's perf records the worker's call tree of `iterations` on cpu-clock into file_, then
  // runs `perf COMMAND -i file_ OPTIONS...` on it.
  Result perf_on_recorded_tree(const std::string& iterations, const std::string& command,
                               const std::vector<std::string>& options) const {
    Result recorded =
        run({"/usr/bin/perf", "record", "-q", "-e", "cpu-clock", "-o", file_, "--", WORKER, "tree", iterations});
    EXPECT_EQ(recorded.exit_code, 0) << recorded.err;
    std::vector<std::string> args = {"/usr/bin/perf", command, "-i", file_};
    args.insert(args.end(), options.begin(), options.end());
    Result perf = run(args);
    EXPECT_EQ(perf.exit_code, 0) << perf.err;
    return perf;
  }
  static bool have_perf() { return access("/usr/bin/perf", X_OK) == 0; }

  fs::path dir_;
  std::string file_;
};

// The samples of collapsed stacks that end in the worker's getppid under perfmon_branch_a and
// under perfmon_branch_b, called from main.
std::pair<std::uint64_t, std::uint64_t> samples_under_branches(const std::string& folded) {
  std::uint64_t under_a = 0, under_b = 0;
  std::istringstream lines(folded);
  for (std::string line; std::getline(lines, line);) {
    const std::uint64_t samples = std::stoull(line.substr(line.rfind(' ') + 1));
    if (line.find(";main;perfmon_branch_a;perfmon_getppid_leaf;syscall ") != std::string::npos) under_a += samples;
    if (line.find(";main;perfmon_branch_b;perfmon_getppid_leaf;syscall ") != std::string::npos) under_b += samples;
  }
  return {under_a, under_b};
}

// "    98.20%  perfmon-test-wo  ...  [.] perfmon_spin" -> {"perfmon_spin", 98.2}, for rows above 1%.
std::map<std::string, double> top_symbols(const std::string& table) {
  std::map<std::string, double> shares;
  std::istringstream rows(table);
  for (std::string row; std::getline(rows, row);) {
    if (row.empty() || row[0] == '#' || row.find('%') == std::string::npos || row.find("] ") == std::string::npos)
      continue;
    const double share = std::stod(row);
    if (share >= 1.0) shares[row.substr(row.find("] ") + 2)] += share;
  }
  return shares;
}

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

// The lines of a text but those of samples in the vDSO, which perf names from a copy it takes of
// the running process's and perfmon does not.
std::string without_vdso(const std::string& text) {
  std::string kept;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);)
    if (line.find("([vdso])") == std::string::npos) kept += line + "\n";
  return kept;
}

// Where perf 6.1 leaves a PLT entry unnamed and perfmon names it (docs/cli.md): an IFUNC's slot
// bound in place, which perf calls "@plt" and perfmon after its resolver ("__tunable_get_val@plt"
// in libc), and the lazy PLT's header beside an IBT PLT (.plt.sec), "[unknown]" to perf and ".plt"
// to perfmon. The lines are otherwise the same.
bool perf_leaves_plt_entry_unnamed(const std::string& perf_line, const std::string& our_line) {
  const std::size_t perf_symbol =
      perf_line.find(" @plt+0x") != std::string::npos ? perf_line.find(" @plt+0x") : perf_line.find(" [unknown] (");
  const std::size_t our_symbol = our_line.find(' ', perf_symbol);
  if (perf_symbol == std::string::npos || our_line.compare(0, perf_symbol, perf_line, 0, perf_symbol) != 0 ||
      our_symbol != perf_symbol)
    return false;
  const std::size_t our_end = our_line.find(" (", our_symbol + 1), perf_end = perf_line.find(" (", perf_symbol + 1);
  if (our_end == std::string::npos || perf_end == std::string::npos ||
      our_line.substr(our_end) != perf_line.substr(perf_end))
    return false;
  const std::string named = our_line.substr(our_symbol + 1, our_end - our_symbol - 1);
  return named.find("@plt+0x") != std::string::npos || named.starts_with(".plt+0x");
}

// perfmon script prints what perf script prints, line for line, for a file perf recorded.
TEST_F(Report, ScriptPrintsSamplesAsPerfScript) {
  if (!have_perf()) GTEST_SKIP() << "Debian's linux-perf is not installed (/usr/bin/perf)";
  const Result perf = perf_on_recorded_tree("10000000", "script", {});
  Result ours = run({PERFMON, "script", "-i", file_});
  ASSERT_EQ(ours.exit_code, 0) << ours.err;
  std::istringstream perf_lines(without_vdso(perf.out)), our_lines(without_vdso(ours.out));
  std::string perf_line, our_line;
  unsigned lines = 0;
  while (std::getline(perf_lines, perf_line)) {
    ASSERT_TRUE(std::getline(our_lines, our_line)) << "perfmon script stops before perf's line " << perf_line;
    if (our_line != perf_line) {
      EXPECT_TRUE(perf_leaves_plt_entry_unnamed(perf_line, our_line)) << our_line << "\n" << perf_line;
    }
    ++lines;
  }
  EXPECT_FALSE(std::getline(our_lines, our_line)) << "perfmon script goes on after perf's last line: " << our_line;
  EXPECT_GT(lines, 10u) << perf.out;
  EXPECT_NE(ours.out.find(" perfmon_leaf+0x"), std::string::npos) << ours.out;
}

// perfmon script unwinds --call-graph dwarf stacks and prints each sample's chain under it, leaf
// first, the inlined function before the function it is inlined in; -G prints one line a sample.
TEST_F(Report, ScriptPrintsUnwoundCallChains) {
  Result r = run({PERFMON, "record", "-q", "-m", "1024", "--call-graph", "dwarf", "-e", "syscalls:sys_enter_getppid",
                  "-c", "1", "-o", file_, "--", WORKER_WITHOUT_FRAME_POINTERS, "inline-getppid", "20"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  Result script = run({PERFMON, "script", "-i", file_});
  ASSERT_EQ(script.exit_code, 0) << script.err;
  std::istringstream lines(script.out);
  std::vector<std::string> order;
  unsigned samples = 0, complete = 0;
  const std::vector<std::string> expected = {" syscall+0x", " perfmon_inlined_getppid (inlined)",
                                             " perfmon_inline_caller+0x", " main+0x"};
  for (std::string line; std::getline(lines, line);) {
    if (line.find("syscalls:sys_enter_getppid:") != std::string::npos) {
      ++samples;
      order.clear();
    } else if (line.starts_with("\t")) {
      for (const std::string& frame : expected)
        if (line.find(frame) != std::string::npos) order.push_back(frame);
      if (order == expected) ++complete, order.clear();
    }
  }
  EXPECT_EQ(samples, 20u) << script.out;
  EXPECT_EQ(complete, 20u) << script.out;

  Result flat = run({PERFMON, "script", "-G", "-i", file_});
  ASSERT_EQ(flat.exit_code, 0) << flat.err;
  EXPECT_EQ(std::count(flat.out.begin(), flat.out.end(), '\n'), 20) << flat.out;
  EXPECT_EQ(flat.out.find('\t'), std::string::npos) << flat.out;

  Result json = run({PERFMON, "script", "--json", "-i", file_});
  ASSERT_EQ(json.exit_code, 0) << json.err;
  const nlohmann::json first = nlohmann::json::parse(json.out.substr(0, json.out.find('\n')));
  ASSERT_TRUE(first.contains("callchain")) << first.dump();
  ASSERT_GE(first["callchain"].size(), 3u);
  EXPECT_EQ(first["callchain"][1]["sym"], "perfmon_inlined_getppid");
  EXPECT_EQ(first["callchain"][1]["inlined"], true);
  EXPECT_EQ(first["callchain"][2]["sym"], "perfmon_inline_caller");
}

// Where a sample's address lies in an inlined function, perfmon script --json names the same leaf
// as the text (the function the code is in, with its file); the inlined one is a frame of the chain.
TEST_F(Report, ScriptJsonNamesTheSameLeafAsTheText) {
  Result r = run({PERFMON, "record", "-q", "-g", "-e", "cpu-clock:u", "-F", "10000", "-o", file_, "--", WORKER,
                  "inline-getppid", "300000"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  Result json = run({PERFMON, "script", "--json", "-i", file_});
  Result text = run({PERFMON, "script", "-G", "-i", file_});
  ASSERT_EQ(json.exit_code, 0) << json.err;
  ASSERT_EQ(text.exit_code, 0) << text.err;
  std::vector<std::string> json_leaves, text_leaves;
  std::size_t in_caller = 0;
  for (const std::string& line : lines_of(json.out)) {
    const nlohmann::json sample = nlohmann::json::parse(line);
    const std::string sym = sample["sym"];
    EXPECT_FALSE(sample["dso"].get<std::string>().empty()) << line;
    json_leaves.push_back(sym.empty() ? "[unknown]" : sym);
    in_caller += sym == "perfmon_inline_caller";
  }
  for (const std::string& line : lines_of(text.out)) {
    // "ADDRESS FUNCTION+0xOFFSET (FILE)" or "ADDRESS [unknown] (FILE)"; a C++ name may hold spaces.
    std::string frame = line.substr(line.find_first_not_of(' ', line.find("cpu-clock:u:") + 12));
    frame = frame.substr(frame.find(' ') + 1);
    frame = frame.substr(0, frame.rfind(" ("));
    text_leaves.push_back(frame.substr(0, frame.rfind("+0x")));
  }
  EXPECT_EQ(json_leaves, text_leaves);
  EXPECT_GT(in_caller, 0u) << "no sample in the loop inlined into perfmon_inline_caller";
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

// --- The flame graph in a browser ---------------------------------------------------------------

// An RGB(A) picture decoded from a PNG file (8 bits per channel, not interlaced: what Chromium writes).
struct Picture {
  std::uint32_t width = 0, height = 0, channels = 0;
  std::vector<std::uint8_t> pixels;
};

std::uint32_t big_endian(const std::string& bytes, std::size_t at) {
  return static_cast<std::uint32_t>(
      static_cast<std::uint8_t>(bytes[at]) << 24 | static_cast<std::uint8_t>(bytes[at + 1]) << 16 |
      static_cast<std::uint8_t>(bytes[at + 2]) << 8 | static_cast<std::uint8_t>(bytes[at + 3]));
}

Picture decode_png(const std::string& png) {
  Picture picture;
  if (png.size() < 8 || png.compare(0, 8, "\x89PNG\r\n\x1a\n") != 0) return picture;
  std::string compressed;
  for (std::size_t at = 8; at + 12 <= png.size();) {
    const std::uint32_t length = big_endian(png, at);
    const std::string type = png.substr(at + 4, 4);
    if (at + 12 + length > png.size()) return picture;
    if (type == "IHDR") {
      picture.width = big_endian(png, at + 8);
      picture.height = big_endian(png, at + 12);
      if (png[at + 16] != 8 || png[at + 20] != 0) return {};  // 8 bits, no interlace
      picture.channels = png[at + 17] == 6 ? 4 : png[at + 17] == 2 ? 3 : 0;
    }
    if (type == "IDAT") compressed += png.substr(at + 8, length);
    at += 12 + length;
  }
  if (picture.channels == 0) return {};
  const std::size_t stride = picture.width * picture.channels;
  std::vector<std::uint8_t> raw((stride + 1) * picture.height);
  uLongf size = raw.size();
  if (uncompress(raw.data(), &size, reinterpret_cast<const Bytef*>(compressed.data()), compressed.size()) != Z_OK ||
      size != raw.size())
    return {};
  picture.pixels.resize(stride * picture.height);
  for (std::uint32_t y = 0; y < picture.height; ++y) {
    const std::uint8_t filter = raw[y * (stride + 1)];
    const std::uint8_t* in = &raw[y * (stride + 1) + 1];
    std::uint8_t* out = &picture.pixels[y * stride];
    const std::uint8_t* up = y > 0 ? out - stride : nullptr;
    for (std::size_t x = 0; x < stride; ++x) {
      const int a = x >= picture.channels ? out[x - picture.channels] : 0, b = up ? up[x] : 0,
                c = up && x >= picture.channels ? up[x - picture.channels] : 0;
      int predicted = 0;
      if (filter == 1) predicted = a;
      if (filter == 2) predicted = b;
      if (filter == 3) predicted = (a + b) / 2;
      if (filter == 4) {
        const int p = a + b - c, pa = std::abs(p - a), pb = std::abs(p - b), pc = std::abs(p - c);
        predicted = pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
      }
      out[x] = static_cast<std::uint8_t>(in[x] + predicted);
    }
  }
  return picture;
}

class FlameGraph : public Report {
 protected:
  void SetUp() override {
    if (access("/usr/bin/chromium", X_OK) != 0)
      GTEST_SKIP() << "Debian's chromium is not installed (scripts/install-deps installs it)";
    Report::SetUp();
    record_call_tree();
    svg_ = (dir_ / "flame.svg").string();
    Result r = run({PERFMON, "report", "-i", file_, "--svg", svg_});
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }
  // Headless Chromium as root needs --no-sandbox; the profile directory keeps it off $HOME.
  Result chromium(std::vector<std::string> args) const {
    args.insert(args.begin(), {"/usr/bin/chromium", "--headless", "--no-sandbox", "--disable-gpu",
                               "--user-data-dir=" + (dir_ / "profile").string(), "--window-size=1200,400"});
    return run(args);
  }
  std::string svg_;
};

TEST_F(FlameGraph, ScreenshotShowsTheFrames) {
  const std::string shot = (dir_ / "flame.png").string();
  Result r = chromium({"--screenshot=" + shot, "file://" + svg_});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const Picture picture = decode_png(read_file(shot));
  ASSERT_EQ(picture.width, 1200u) << "not a PNG of the window's size";
  // Frames of user code are drawn in warm colours (red 205 and up, blue 55 and below): the stack of
  // five frames spans the width, so they cover far more than a few percent of the picture.
  std::size_t warm = 0;
  for (std::size_t p = 0; p + 2 < picture.pixels.size(); p += picture.channels)
    warm += picture.pixels[p] >= 205 && picture.pixels[p + 2] <= 55;
  const double share = static_cast<double>(warm) / (picture.width * picture.height);
  EXPECT_GE(share, 0.10) << "the frames are not drawn";
}

// The SVG inside a page whose script clicks a frame and searches through the picture's own
// controls, then writes what it saw into the page, which Chromium prints (--dump-dom).
TEST_F(FlameGraph, ClickZoomsAndSearchFindsTheShare) {
  const std::string page = (dir_ / "page.html").string();
  std::ofstream(page) << "<!DOCTYPE html><html><body>" << read_file(svg_).substr(read_file(svg_).find("<svg"))
                      << R"(<script>
const seen = {errors: []};
window.addEventListener("error", (e) => seen.errors.push(String(e.message)));
window.addEventListener("load", () => {
  try {
    const frames = Array.from(document.querySelectorAll("g.frame"));
    seen.frames = frames.length;
    const a = frames.find((g) => g.getAttribute("data-name") === "perfmon_branch_a");
    a.querySelector("rect").dispatchEvent(new MouseEvent("click", {bubbles: true}));
    seen.zoomed_width = +a.querySelector("rect").getAttribute("width");
    seen.b_hidden = frames.find((g) => g.getAttribute("data-name") === "perfmon_branch_b").style.display === "none";
    seen.label = a.querySelector("text").textContent;
    window.prompt = () => "perfmon_branch_a";
    document.getElementById("search").dispatchEvent(new MouseEvent("click", {bubbles: true}));
    seen.matched = document.getElementById("matched").textContent;
    document.getElementById("unzoom").dispatchEvent(new MouseEvent("click", {bubbles: true}));
    seen.unzoomed_width = +a.querySelector("rect").getAttribute("width");
  } catch (e) {
    seen.errors.push(String(e));
  }
  const out = document.createElement("pre");
  out.id = "seen";
  out.textContent = JSON.stringify(seen);
  document.body.appendChild(out);
});
</script></body></html>)";
  Result r = chromium({"--virtual-time-budget=5000", "--dump-dom", "file://" + page});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::size_t start = r.out.find("<pre id=\"seen\">");
  ASSERT_NE(start, std::string::npos) << r.out.substr(0, 2000);
  const std::size_t from = start + std::strlen("<pre id=\"seen\">");
  std::string text = r.out.substr(from, r.out.find("</pre>", from) - from);
  for (std::size_t at; (at = text.find("&quot;")) != std::string::npos;) text.replace(at, 6, "\"");
  const auto seen = nlohmann::json::parse(text);
  EXPECT_TRUE(seen["errors"].empty()) << seen;
  EXPECT_GE(seen["frames"].get<int>(), 6) << seen;                        // all, the command, libc, main, a, b, syscall
  EXPECT_NEAR(seen["zoomed_width"].get<double>(), 1180.0, 0.01) << seen;  // the clicked frame fills the width
  EXPECT_TRUE(seen["b_hidden"].get<bool>()) << seen;
  EXPECT_EQ(seen["label"], "perfmon_branch_a") << seen;
  EXPECT_EQ(seen["matched"], "Matched: 75.0%") << seen;  // 300 of 400 samples
  EXPECT_NEAR(seen["unzoomed_width"].get<double>(), 1180.0 * 0.75, 0.01) << seen;
}

// A differential flame graph (report --svg --diff BASE): the base runs the worker's call tree of
// 100 (300 calls under branch a, 100 under b) and 400 plain calls; the new file the tree of 200 and
// 100 plain calls. The tree's frames grew (red), the plain calls' frame shrank (blue).
class DifferentialFlameGraph : public FlameGraph {
 protected:
  void SetUp() override {
    FlameGraph::SetUp();
    if (IsSkipped()) return;
    base_ = (dir_ / "base.data").string();
    now_ = (dir_ / "new.data").string();
    record(base_, 100, 400);
    record(now_, 200, 100);
    Result r = run({PERFMON, "report", "-i", now_, "--svg", svg_, "--diff", base_});
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }
  void record(const std::string& file, int tree, int plain) const {
    const std::string script = std::string("'") + WORKER + "' tree-getppid " + std::to_string(tree) + "; '" + WORKER +
                               "' getppid " + std::to_string(plain);
    Result r = run({PERFMON, "record", "-q", "-g", "-e", "syscalls:sys_enter_getppid", "-c", "1", "-o", file, "--",
                    "/bin/sh", "-c", script});
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }
  // A frame's data-delta, by name (the first frame of that name).
  double delta_of(const std::string& svg, const std::string& name) const {
    const std::size_t at = svg.find("data-name=\"" + name + "\" data-delta=\"");
    if (at == std::string::npos) return std::nan("");
    const std::size_t from = svg.find("data-delta=\"", at) + std::strlen("data-delta=\"");
    return std::stod(svg.substr(from, svg.find('"', from) - from));
  }
  std::string base_, now_;
};

TEST_F(DifferentialFlameGraph, FramesCarryTheirChangeInPoints) {
  const std::string svg = read_file(svg_);
  // Base: 400 of 801 calls in the tree (300 a, 100 b); new: 800 of 901 (600 a, 200 b).
  EXPECT_NEAR(delta_of(svg, "perfmon_branch_a"), 100.0 * 600 / 901 - 100.0 * 300 / 801, 0.1) << svg.substr(0, 3000);
  EXPECT_NEAR(delta_of(svg, "perfmon_branch_b"), 100.0 * 200 / 901 - 100.0 * 100 / 801, 0.1);
  EXPECT_NEAR(delta_of(svg, "all"), 0.0, 1e-9);
  EXPECT_NE(svg.find("Differential Flame Graph: "), std::string::npos);
  EXPECT_NE(svg.find("id=\"legend\""), std::string::npos);
  EXPECT_NE(svg.find("was 37.45%, +29.14 points"), std::string::npos);  // branch a's title
  // Against itself, every frame is unchanged.
  const std::string same = (dir_ / "same.svg").string();
  ASSERT_EQ(run({PERFMON, "report", "-i", now_, "--svg", same, "--diff", now_}).exit_code, 0);
  const std::string itself = read_file(same);
  for (std::size_t at = 0; (at = itself.find("data-delta=\"", at)) != std::string::npos; ++at)
    EXPECT_EQ(itself.substr(at + 12, 7), "0.0000\"") << itself.substr(at, 40);
}

TEST_F(DifferentialFlameGraph, ScreenshotShowsGrowthRedAndShrinkageBlue) {
  const std::string shot = (dir_ / "diff.png").string();
  Result r = chromium({"--screenshot=" + shot, "file://" + svg_});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const Picture picture = decode_png(read_file(shot));
  ASSERT_EQ(picture.width, 1200u);
  std::size_t red = 0, blue = 0;
  for (std::size_t p = 0; p + 2 < picture.pixels.size(); p += picture.channels) {
    const int r8 = picture.pixels[p], g8 = picture.pixels[p + 1], b8 = picture.pixels[p + 2];
    red += r8 >= 240 && g8 <= 100 && b8 <= 100;
    blue += b8 >= 240 && r8 <= 100 && g8 <= 100;
  }
  const double area = static_cast<double>(picture.width) * picture.height;
  EXPECT_GE(red / area, 0.02) << "the frames that grew are not drawn red";
  EXPECT_GE(blue / area, 0.002) << "the frame that shrank is not drawn blue";
}

TEST_F(DifferentialFlameGraph, FoldedStacksCarryBothCountsAsDifffoldedWritesThem) {
  Result r = run({PERFMON, "report", "-i", now_, "--folded", "--diff", base_});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find(";main;perfmon_branch_a;syscall 300 600\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(";main;perfmon_branch_b;syscall 100 200\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("syscall 400 100\n"), std::string::npos) << r.out;  // the plain calls' stack, however framed
}

TEST_F(DifferentialFlameGraph, DiffNeedsTheSvgOrFoldedStacks) {
  Result r = run({PERFMON, "report", "-i", now_, "--diff", base_});
  EXPECT_EQ(r.exit_code, 129);
  EXPECT_NE(r.err.find("--diff BASE draws a differential flame graph, or its two-count folded stacks"),
            std::string::npos)
      << r.err;
}

// report --speedscope, loaded by speedscope's own page (npm's speedscope, which scripts/install-deps
// fetches) from a web server on loopback, in headless Chromium: the page names the profile's
// thread, and draws its frames.
class Speedscope : public FlameGraph {
 protected:
  static constexpr const char* kPage = "/usr/local/share/perfmon/npm/node_modules/speedscope/dist/release";
  void SetUp() override {
    if (access((std::string(kPage) + "/index.html").c_str(), R_OK) != 0)
      GTEST_SKIP() << "speedscope's page is missing (scripts/install-deps fetches it from npm into " << kPage << ")";
    FlameGraph::SetUp();
    if (IsSkipped()) return;
    site_ = dir_ / "site";
    fs::copy(kPage, site_, fs::copy_options::recursive);
    Result r = run({PERFMON, "report", "-i", file_, "--speedscope", (site_ / "profile.json").string()});
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }
  fs::path site_;
};

TEST_F(Speedscope, TheFileHasAProfilePerThreadWithThePeriods) {
  const auto data = nlohmann::json::parse(read_file((site_ / "profile.json").string()));
  EXPECT_EQ(data["$schema"], "https://www.speedscope.app/file-format-schema.json");
  ASSERT_EQ(data["profiles"].size(), 1u);  // one thread sampled
  const auto& profile = data["profiles"][0];
  EXPECT_EQ(profile["type"], "sampled");
  EXPECT_TRUE(profile["name"].get<std::string>().starts_with("syscalls:sys_enter_getppid: perfmon-test-wo-"));
  EXPECT_EQ(profile["endValue"], 400);
  // The stacks through perfmon_branch_a weigh 300, through b 100.
  std::map<std::string, std::uint64_t> through;
  for (std::size_t k = 0; k < profile["samples"].size(); ++k)
    for (const auto& index : profile["samples"][k])
      through[data["shared"]["frames"][index.get<std::size_t>()]["name"]] += profile["weights"][k].get<std::uint64_t>();
  EXPECT_EQ(through["perfmon_branch_a"], 300u);
  EXPECT_EQ(through["perfmon_branch_b"], 100u);
}

TEST_F(Speedscope, SpeedscopesPageShowsTheProfile) {
  Process server({"/usr/bin/python3", "-c",
                  "import http.server, functools, sys\n"
                  "handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=sys.argv[1])\n"
                  "server = http.server.ThreadingHTTPServer(('127.0.0.1', 0), handler)\n"
                  "print(server.server_address[1], flush=True)\n"
                  "server.serve_forever()\n",
                  site_.string()});
  const std::string port = server.read_stdout_until("\n");
  ASSERT_FALSE(port.empty());
  const std::string base = "http://127.0.0.1:" + port.substr(0, port.find('\n'));
  const std::string url = base + "/index.html#profileURL=" + base + "/profile.json";
  Result dom = chromium({"--virtual-time-budget=8000", "--dump-dom", url});
  const std::string shot = (dir_ / "speedscope.png").string();
  Result picture_run = chromium({"--virtual-time-budget=8000", "--screenshot=" + shot, url});
  server.signal(SIGTERM);
  server.wait();
  ASSERT_EQ(dom.exit_code, 0) << dom.err;
  EXPECT_NE(dom.out.find("syscalls:sys_enter_getppid: perfmon-test-wo-"), std::string::npos) << dom.out.substr(0, 2000);
  ASSERT_EQ(picture_run.exit_code, 0) << picture_run.err;
  // The frames are drawn in speedscope's pastel colours: much of the picture is neither white nor grey.
  const Picture picture = decode_png(read_file(shot));
  std::size_t coloured = 0;
  for (std::size_t p = 0; p + 2 < picture.pixels.size(); p += picture.channels) {
    const int r8 = picture.pixels[p], g8 = picture.pixels[p + 1], b8 = picture.pixels[p + 2];
    coloured += std::max({r8, g8, b8}) - std::min({r8, g8, b8}) >= 30;
  }
  EXPECT_GE(static_cast<double>(coloured) / (picture.width * picture.height), 0.05) << "no frames drawn";
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
