// SPDX-License-Identifier: Apache-2.0
// perfmon top as a user runs it: the table every -d seconds (--stdio) of a spinning worker's
// samples, every row its own; the live view in a terminal (tmux): drawn, zoomed into a file, sorted
// again, paused, quit with q and the terminal given back; the end of its target ending it.
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <regex>
#include <string>
#include <thread>

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

}  // namespace
}  // namespace perfmon::testing
