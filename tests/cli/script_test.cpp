// SPDX-License-Identifier: Apache-2.0
// perfmon script as perf script prints it: every sample of perfmon's and perf's files with the
// functions perf names, unwound call chains, and JSON naming the same leaf as the text.
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

// perf script's -F, on a file perf recorded: the columns asked for, line for line as perf prints
// them (a list, or changes to the default columns); --header puts the file's header first.
TEST_F(Report, ScriptFieldsAreThoseOfPerfScript) {
  if (!have_perf()) GTEST_SKIP() << "Debian's linux-perf is not installed (/usr/bin/perf)";
  const std::vector<std::string> field_lists = {"comm,tid,time,event,ip,sym,dso",
                                                "comm,pid,tid,time,period,event,ip,sym,symoff,dso",
                                                "tid,time,ip",
                                                "+pid",
                                                "-time,-cpu",
                                                "time,event,ip,dso"};
  perf_on_recorded_tree("10000000", "script", {"-F", field_lists.front()});
  for (const std::string& fields : field_lists) {
    const Result perf = run({"/usr/bin/perf", "script", "-i", file_, "-F", fields});
    const Result ours = run({PERFMON, "script", "-i", file_, "-F", fields});
    ASSERT_EQ(ours.exit_code, 0) << ours.err;
    std::istringstream perf_lines(without_vdso(perf.out)), our_lines(without_vdso(ours.out));
    std::string perf_line, our_line;
    while (std::getline(perf_lines, perf_line)) {
      ASSERT_TRUE(std::getline(our_lines, our_line)) << fields << ": perfmon stops before perf's " << perf_line;
      if (our_line != perf_line) {
        EXPECT_TRUE(perf_leaves_plt_entry_unnamed(perf_line, our_line)) << fields << "\n"
                                                                        << our_line << "\n"
                                                                        << perf_line;
      }
    }
    EXPECT_FALSE(std::getline(our_lines, our_line)) << fields << ": perfmon goes on after perf: " << our_line;
  }
  const Result header = run({PERFMON, "script", "-i", file_, "--header", "-F", "tid"});
  ASSERT_EQ(header.exit_code, 0) << header.err;
  EXPECT_TRUE(header.out.starts_with("# ========\n# captured on    : ")) << header.out;
  EXPECT_NE(header.out.find("\n# event : name = cpu-clock"), std::string::npos) << header.out;
  EXPECT_NE(header.out.find("# ========\n#\n"), std::string::npos) << header.out;
  // perf's file has no CPU in its samples: asked for, it is refused (perf too, exit 255).
  const Result no_cpu = run({PERFMON, "script", "-i", file_, "-F", "comm,cpu"});
  EXPECT_EQ(no_cpu.exit_code, 1);
  EXPECT_EQ(no_cpu.out, "");
  EXPECT_NE(no_cpu.err.find("the samples of 'cpu-clock' do not carry their CPU"), std::string::npos) << no_cpu.err;
  const Result bad = run({PERFMON, "script", "-i", file_, "-F", "comm,colour"});
  EXPECT_EQ(bad.exit_code, 129);
  EXPECT_NE(bad.err.find("not 'colour'."), std::string::npos) << bad.err;
}

// --comms, --pid, --tid and -C keep the samples of those commands, processes, threads and CPUs:
// each filter of the call tree's 400 samples keeps all of them or none, and the CPUs' share them.
TEST_F(Report, ScriptFiltersBySampleCommandThreadAndCpu) {
  record_call_tree();
  auto samples = [&](std::vector<std::string> args) {
    args.insert(args.begin(), {PERFMON, "script", "-G", "-i", file_});
    const Result r = run(args);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return lines_of(r.out).size();
  };
  EXPECT_EQ(samples({}), 400u);
  EXPECT_EQ(samples({"--comms", "perfmon-test-wo"}), 400u);
  EXPECT_EQ(samples({"--comms", "someone-else"}), 0u);
  const Result first = run({PERFMON, "script", "-G", "-i", file_, "-F", "pid,tid"});
  std::istringstream ids(lines_of(first.out).at(0));
  std::string pid_tid;
  ids >> pid_tid;  // "PID/TID"
  const std::string pid = pid_tid.substr(0, pid_tid.find('/')), tid = pid_tid.substr(pid_tid.find('/') + 1);
  EXPECT_EQ(samples({"--pid", pid}), 400u);
  EXPECT_EQ(samples({"--tid", tid + ",1"}), 400u);
  EXPECT_EQ(samples({"--pid", "1"}), 0u);
  std::size_t on_cpus = 0;
  for (long cpu = 0; cpu < sysconf(_SC_NPROCESSORS_CONF); ++cpu) on_cpus += samples({"-C", std::to_string(cpu)});
  EXPECT_EQ(on_cpus, 400u);
  const Result header = run({PERFMON, "script", "-i", file_, "--header-only"});
  ASSERT_EQ(header.exit_code, 0) << header.err;
  EXPECT_TRUE(header.out.starts_with("# ========\n") && header.out.ends_with("# ========\n#\n")) << header.out;
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

}  // namespace
}  // namespace perfmon::testing
