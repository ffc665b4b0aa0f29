// SPDX-License-Identifier: Apache-2.0
// perfmon top as a user runs it: the table every -d seconds (--stdio) of a spinning worker's
// samples, every row its own; the live view in a terminal (tmux): drawn, zoomed into a file, sorted
// again, paused, quit with q and the terminal given back; the end of its target ending it.
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <map>
#include <regex>
#include <string>
#include <thread>
#include <vector>

#include "process.hpp"

namespace perfmon::testing {
namespace {

// The event top samples here, by what it said: cycles, or cpu-clock where it said why not.
std::string sampled_event(const std::string& err) {
  return err.find("sampling cpu-clock, not cycles") != std::string::npos ? "cpu-clock" : "cycles";
}

std::size_t count_of(const std::string& text, const std::string& word) {
  std::size_t count = 0;
  for (std::size_t at = text.find(word); at != std::string::npos; at = text.find(word, at + 1)) ++count;
  return count;
}

TEST(CliTop, StdioPrintsTheTargetsRowsEveryDelay) {
  Process worker({WORKER, "spin", "30000"});
  Process top({PERFMON, "top", "--stdio", "-d", "0.5", "-E", "8", "--sort", "comm,dso,sym", "-p",
               std::to_string(worker.pid())});
  const std::string out = top.read_stdout_until("perfmon top:") + top.read_stdout_until("\n\n   perfmon top:") +
                          top.read_stdout_until("\n\n   perfmon top:");
  top.signal(SIGINT);
  const Result r = top.wait();
  EXPECT_EQ(r.exit_code, 0) << r.err;
  const std::string all = out + r.out;
  EXPECT_GE(count_of(all, "   perfmon top: "), 3u) << all;
  const std::string event = sampled_event(r.err);
  EXPECT_NE(all.find(" Hz " + event + "]  (pid " + std::to_string(worker.pid()) + ")"), std::string::npos)
      << all << r.err;
  EXPECT_NE(all.find("Overhead   Samples  Command          Shared Object"), std::string::npos) << all;
  // Every row is the worker's, and its samples add up across the refreshes.
  int rows = 0;
  const std::regex row(R"(^ +\d+\.\d\d%  +\d+  (\S+) )");
  for (const std::string& line : lines_of(all)) {
    std::smatch m;
    if (!std::regex_search(line, m, row)) continue;
    EXPECT_EQ(m[1], "perfmon-test-wo") << line;
    ++rows;
  }
  EXPECT_GE(rows, 3) << all;
}

// perf top's -K and -U: the kernel's samples left out, or user space's.
TEST(CliTop, HidesTheKernelsOrUserSpacesSamples) {
  Process worker({WORKER, "spin", "30000"});
  for (const auto& [flag, hidden] : {std::pair{"-K", "[k] "}, std::pair{"-U", "[.] "}}) {
    Process top({PERFMON, "top", "--stdio", "-d", "0.4", flag, "-e", "cpu-clock"});
    const std::string out = top.read_stdout_until("perfmon top:") + top.read_stdout_until("\n\n   perfmon top:");
    top.signal(SIGINT);
    const Result r = top.wait();
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ((out + r.out).find(hidden), std::string::npos) << flag << "\n" << out + r.out;
  }
}

TEST(CliTop, EndsWhenEveryThreadItSamplesHasExited) {
  Process worker({WORKER, "spin", "700"});
  const Result r =
      run({"/usr/bin/timeout", "30", PERFMON, "top", "--stdio", "-d", "0.3", "-p", std::to_string(worker.pid())});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("perfmon top: every thread it sampled has exited."), std::string::npos) << r.err;
  EXPECT_NE(r.out.find("perfmon-test-worker"), std::string::npos) << r.out;
}

// perf top -g on the worker's call tree, sampled at every getppid (300 under perfmon_branch_a, 100
// under perfmon_branch_b), all of it in one refresh (the last, when the worker exits): every share
// exact. Returns what top printed.
std::string top_of_call_tree(const std::vector<std::string>& flags) {
  Process worker({WORKER, "tree-getppid", "100", "--wait-stdin"});
  const std::string ready = worker.read_stdout_until("\n");
  EXPECT_EQ(ready.rfind("ready ", 0), 0u) << ready;
  std::vector<std::string> args = {PERFMON,   "top",
                                   "--stdio", "-v",
                                   "-d",      "600",
                                   "--sort",  "sym",
                                   "-e",      "syscalls:sys_enter_getppid",
                                   "-c",      "1",
                                   "-p",      std::to_string(worker.pid())};
  args.insert(args.end(), flags.begin(), flags.end());
  Process top(args);
  const std::string started = top.read_stderr_until("sampling started");
  EXPECT_NE(started.find("perfmon top: sampling started"), std::string::npos) << started;
  worker.write_stdin("go\n");
  worker.wait();
  const Result r = top.wait();
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return r.out;
}

// Each row's figures by its function: (children or overhead, self or "", samples).
std::map<std::string, std::vector<std::string>> figures_by_symbol(const std::string& table) {
  std::map<std::string, std::vector<std::string>> figures;
  const std::regex row(R"(^ *(\d+\.\d\d)%(?:  +(\d+\.\d\d)%)?  +(\d+)  \[\.\] (\S+)$)");
  for (const std::string& line : lines_of(table)) {
    std::smatch m;
    if (std::regex_search(line, m, row)) figures[m[4]] = {m[1], m[2], m[3]};
  }
  return figures;
}

TEST(CliTop, CallChainsGiveEachFunctionItsChildrenAndItsChains) {
  const std::string out = top_of_call_tree({"-g"});
  EXPECT_NE(out.find("Children      Self   Samples  Symbol"), std::string::npos) << out;
  using Figures = std::vector<std::string>;
  const auto figures = figures_by_symbol(out);
  EXPECT_EQ(figures.at("syscall"), (Figures{"100.00", "100.00", "400"})) << out;
  EXPECT_EQ(figures.at("main"), (Figures{"100.00", "0.00", "0"})) << out;
  EXPECT_EQ(figures.at("perfmon_branch_a"), (Figures{"75.00", "0.00", "0"})) << out;
  EXPECT_EQ(figures.at("perfmon_branch_b"), (Figures{"25.00", "0.00", "0"})) << out;
  // Ranked by children, the sampled function first among equals; its chains under it, as perf
  // report -g draws them.
  EXPECT_LT(out.find("[.] syscall"), out.find("[.] main")) << out;
  EXPECT_LT(out.find("[.] main"), out.find("[.] perfmon_branch_a")) << out;
  EXPECT_NE(out.find("            |--75.00%--syscall\n"
                     "            |          perfmon_branch_a\n"
                     "            |          main\n"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("             --25.00%--syscall\n"
                     "                       perfmon_branch_b\n"
                     "                       main\n"),
            std::string::npos)
      << out;
}

TEST(CliTop, NoChildrenRanksByOwnSamplesAndMaxStackCutsTheChains) {
  using Figures = std::vector<std::string>;
  std::string out = top_of_call_tree({"-g", "--no-children"});
  EXPECT_NE(out.find("Overhead   Samples  Symbol"), std::string::npos) << out;
  auto figures = figures_by_symbol(out);
  EXPECT_EQ(figures.at("syscall"), (Figures{"100.00", "", "400"})) << out;
  EXPECT_FALSE(figures.contains("main")) << "a row of no samples of its own:\n" << out;
  EXPECT_NE(out.find("|--75.00%--syscall"), std::string::npos) << out;

  // Two frames from the sampled function: main is in no chain, and weighs nothing.
  out = top_of_call_tree({"--call-graph", "fp", "--max-stack", "2"});
  figures = figures_by_symbol(out);
  EXPECT_EQ(figures.at("perfmon_branch_a"), (Figures{"75.00", "0.00", "0"})) << out;
  EXPECT_FALSE(figures.contains("main")) << out;
  EXPECT_NE(out.find("            |--75.00%--syscall\n"
                     "            |          perfmon_branch_a\n"
                     "            |\n"),
            std::string::npos)
      << out;
}

// The live view, in a terminal of tmux's: what a person sees, read back with capture-pane.
class CliTopLive : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!std::filesystem::exists("/usr/bin/tmux")) GTEST_SKIP() << "tmux is not installed (scripts/install-deps)";
    socket_ = "perfmon-top-test-" + std::to_string(getpid());
  }
  void TearDown() override {
    if (!socket_.empty()) run({"/usr/bin/tmux", "-L", socket_, "kill-server"});
  }
  Result tmux(std::vector<std::string> args) {
    args.insert(args.begin(), {"/usr/bin/tmux", "-L", socket_});
    return run(args);
  }
  std::string screen() { return tmux({"capture-pane", "-p", "-t", "top"}).out; }
  // The screen once it shows `pattern`, or what it showed after 20 s.
  std::string screen_showing(const std::regex& pattern) {
    std::string now;
    for (int i = 0; i < 200; ++i) {
      now = screen();
      if (std::regex_search(now, pattern)) return now;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    ADD_FAILURE() << "the screen never showed what was expected; it shows:\n" << now;
    return now;
  }

  std::string socket_;
};

TEST_F(CliTopLive, SortsZoomsPausesAndQuits) {
  Process worker({WORKER, "spin", "60000"});
  const std::string command = std::string("printf 'before top\\n'; ") + PERFMON + " top -d 0.5 -p " +
                              std::to_string(worker.pid()) + "; echo TOP-EXITED $?; sleep 60";
  ASSERT_EQ(tmux({"new-session", "-d", "-s", "top", "-x", "120", "-y", "24", command}).exit_code, 0);
  // Drawn: the header, the status line, the headings, rows of the worker's files, the keys.
  std::string now = screen_showing(std::regex(R"(\n +\d+\.\d\d%  +\d+  \S)"));
  EXPECT_NE(now.find("   perfmon top: "), std::string::npos) << now;
  EXPECT_NE(now.find("sort: overhead   file: all"), std::string::npos) << now;
  EXPECT_NE(now.find("Overhead   Samples  Shared Object"), std::string::npos) << now;
  EXPECT_NE(now.find("q quit   up/down select   d zoom into the file"), std::string::npos) << now;
  EXPECT_EQ(now.find("before top"), std::string::npos) << "not on a screen of its own:\n" << now;
  // d: only the selected (top) row's file.
  std::smatch first;
  ASSERT_TRUE(std::regex_search(now, first, std::regex(R"(\n +\d+\.\d\d%  +\d+  (\S+) )"))) << now;
  const std::string dso = first[1];
  tmux({"send-keys", "-t", "top", "d"});
  now = screen_showing(std::regex("file: " + std::regex_replace(dso, std::regex(R"([\[\]().+])"), R"(\$&)")));
  for (const std::string& line : lines_of(now)) {
    std::smatch m;
    if (std::regex_search(line, m, std::regex(R"(^ +\d+\.\d\d%  +\d+  (\S+) )"))) {
      EXPECT_EQ(m[1], dso) << now;
    }
  }
  // s: sorted by samples; p: paused; q: gone, and the terminal as it was.
  tmux({"send-keys", "-t", "top", "s"});
  screen_showing(std::regex("sort: samples"));
  tmux({"send-keys", "-t", "top", "p"});
  screen_showing(std::regex("PAUSED"));
  tmux({"send-keys", "-t", "top", "q"});
  now = screen_showing(std::regex("TOP-EXITED 0"));
  EXPECT_NE(now.find("before top"), std::string::npos) << now;
  EXPECT_EQ(now.find("perfmon top:"), std::string::npos) << now;
}

// -g in the live view: Children and Self columns; E opens every row's call chains, C closes them,
// e the selected row's.
TEST_F(CliTopLive, OpensAndClosesCallChains) {
  Process worker({WORKER, "spin", "60000"});
  const std::string command =
      std::string(PERFMON) + " top -g -d 0.5 -p " + std::to_string(worker.pid()) + "; echo TOP-EXITED $?; sleep 60";
  ASSERT_EQ(tmux({"new-session", "-d", "-s", "top", "-x", "120", "-y", "30", command}).exit_code, 0);
  std::string now = screen_showing(std::regex(R"(\n +\d+\.\d\d%  +\d+\.\d\d%  +\d+  \S)"));
  EXPECT_NE(now.find("Children      Self   Samples  Shared Object"), std::string::npos) << now;
  EXPECT_NE(now.find("e call chains (E all, C none)"), std::string::npos) << now;
  const std::regex chain_line(R"(\n {12}(\||---| --|\|--))");
  EXPECT_FALSE(std::regex_search(now, chain_line)) << "chains open before asked:\n" << now;
  tmux({"send-keys", "-t", "top", "E"});
  now = screen_showing(chain_line);
  tmux({"send-keys", "-t", "top", "C"});
  for (int i = 0; i < 100 && std::regex_search(now, chain_line); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    now = screen();
  }
  EXPECT_FALSE(std::regex_search(now, chain_line)) << "chains still open after C:\n" << now;
  // e on the selected row, the first whose own samples are more than 1 % (chains of 0.5 % and more
  // are drawn): its chains open.
  tmux({"send-keys", "-t", "top", "p"});
  now = screen_showing(std::regex("PAUSED"));
  std::size_t rows_above = 0;
  const std::regex row(R"(^ +\d+\.\d\d%  +(\d+\.\d\d)%  +\d+  \S)");
  for (const std::string& line : lines_of(now)) {
    std::smatch m;
    if (!std::regex_search(line, m, row)) continue;
    if (std::stod(m[1]) > 1.0) break;
    ++rows_above;
    tmux({"send-keys", "-t", "top", "Down"});
  }
  ASSERT_LT(rows_above, 20u) << now;
  tmux({"send-keys", "-t", "top", "e"});
  screen_showing(chain_line);
  tmux({"send-keys", "-t", "top", "q"});
  screen_showing(std::regex("TOP-EXITED 0"));
}

}  // namespace
}  // namespace perfmon::testing
