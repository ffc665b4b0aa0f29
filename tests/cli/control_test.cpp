// SPDX-License-Identifier: Apache-2.0
// perfmon stat -D and --control as a script or a program drives them: exact counts of what ran
// between "enable" and "disable", named regions apart, every thread's own, intervals, refusals.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "process.hpp"

namespace perfmon::testing {
namespace {

constexpr const char* kEvent = "syscalls:sys_enter_getppid";

class CliControl : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() / ("perfmon-cli-control-" + std::to_string(getpid()));
    std::filesystem::create_directories(dir_);
    ASSERT_EQ(mkfifo(ctl().c_str(), 0600), 0);
    ASSERT_EQ(mkfifo(ack().c_str(), 0600), 0);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string ctl() const { return (dir_ / "ctl").string(); }
  std::string ack() const { return (dir_ / "ack").string(); }
  // A shell script as the measured command, with c CMD: a command sent, its ack awaited (as a
  // language runtime wires it up), and w N: N getppid calls by the worker.
  std::vector<std::string> script(const std::vector<std::string>& options, const std::string& body) const {
    std::vector<std::string> argv = {PERFMON, "stat", "-e", kEvent};
    argv.insert(argv.end(), options.begin(), options.end());
    const std::string prelude =
        "c() { echo \"$1\" > '" + ctl() + "'; read -r a < '" + ack() + "'; }\nw() { '" WORKER "' getppid \"$@\"; }\n";
    argv.insert(argv.end(), {"--", "sh", "-c", prelude + body});
    return argv;
  }
  std::string channel() const { return "fifo:" + ctl() + "," + ack(); }

  std::filesystem::path dir_;
};

// CSV rows of kEvent: (region or "", value).
std::vector<std::pair<std::string, long long>> csv_rows(const std::string& err) {
  std::vector<std::pair<std::string, long long>> rows;
  for (const std::string& line : lines_of(err)) {
    std::vector<std::string> fields;
    std::istringstream in(line);
    for (std::string field; std::getline(in, field, ',');) fields.push_back(field);
    if (fields.size() >= 4 && fields[3] == kEvent) rows.emplace_back(fields[0], std::stoll(fields[1]));
    if (fields.size() >= 3 && fields[2] == kEvent && fields[0] != "" && std::isdigit(fields[0][0]))
      rows.emplace_back("", std::stoll(fields[0]));
  }
  return rows;
}

TEST_F(CliControl, CountsOnlyBetweenEnableAndDisableAndRegionsApart) {
  Result r = run(script({"-x,", "-D", "-1", "--control", channel()},
                        "w 50\n"
                        "c 'enable a'; w 100; c 'disable a'\n"
                        "w 60\n"
                        "c 'enable b'; w 250; c 'enable a'; w 3; c 'disable b'; w 4; c 'disable a'\n"
                        "c 'disable zz'; c 'enable b'; c 'enable b'; w 1; c 'disable b'; c bogus; c ping\n"
                        "c enable; w 1000; c disable; w 70\n"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::vector<std::pair<std::string, long long>> rows = csv_rows(r.err);
  const std::vector<std::pair<std::string, long long>> expected = {
      {"", 100 + 250 + 3 + 4 + 1 + 1000}, {"a", 100 + 3 + 4}, {"b", 250 + 3 + 1}};
  EXPECT_EQ(rows, expected) << r.err;
  EXPECT_NE(r.err.find("Events disabled"), std::string::npos);
  EXPECT_NE(r.err.find("perfmon: region 'zz' is not enabled: 'disable zz' ignored."), std::string::npos);
  EXPECT_NE(r.err.find("perfmon: region 'b' is already enabled"), std::string::npos);
  EXPECT_NE(r.err.find("unknown control command 'bogus'"), std::string::npos);
}

TEST_F(CliControl, RegionsInTheTableWithTheirTimes) {
  Result r = run(script({"-D", "-1", "--control", channel()}, "c 'enable solve'; w 42; c 'disable solve'\n"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("solve                        42      " + std::string(kEvent)), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("region solve: enabled 1 time, "), std::string::npos) << r.err;
}

TEST_F(CliControl, WithoutDelayCountsFromTheStartAndRegionsWithin) {
  // The shell itself calls getppid as it starts (for $PPID): counted here, as it runs from the start.
  const std::vector<std::pair<std::string, long long>> shell = csv_rows(run(script({"-x,"}, ":")).err);
  ASSERT_EQ(shell.size(), 1u);
  Result r = run(script({"-x,", "--control", channel()}, "w 10; c 'enable r'; w 20; c 'disable r'; w 30\n"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::vector<std::pair<std::string, long long>> expected = {{"", shell[0].second + 60}, {"r", 20}};
  EXPECT_EQ(csv_rows(r.err), expected) << r.err;
}

TEST_F(CliControl, EightThreadsEachCountedInTheRegion) {
  Result r = run(script({"-x,", "-D", "-1", "--control", channel()},
                        "w 5 --threads 8; c 'enable threads'; w 125 --threads 8; c 'disable threads'\n"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::vector<std::pair<std::string, long long>> expected = {{"", 1000}, {"threads", 1000}};
  EXPECT_EQ(csv_rows(r.err), expected) << r.err;
}

TEST_F(CliControl, PerThreadRowsOfAnAttachedProcessInARegion) {
  Process worker({WORKER, "getppid", "100", "--threads", "8", "--wait-stdin"});
  const std::string ready = worker.read_stdout_until("\n");
  ASSERT_EQ(ready.rfind("ready ", 0), 0u) << ready;
  const std::string pid = std::to_string(worker.pid());
  Process stat({PERFMON, "stat", "-x,", "--per-thread", "-p", pid, "-e", kEvent, "-D", "-1", "--control", channel()});
  // A stat that ended instead (no permission, say) reads no command: writing one would wait forever.
  const std::string started = stat.read_stderr_until("Events disabled");
  ASSERT_NE(started.find("Events disabled"), std::string::npos) << "perfmon stat ended before it listened: " << started;
  {
    std::ofstream(ctl()) << "enable r\n";
    std::string line;
    std::ifstream(ack()) >> line;
    EXPECT_EQ(line, "ack");
  }
  worker.write_stdin("go\n");
  worker.close_stdin();
  ASSERT_EQ(worker.wait().exit_code, 0);
  Result r = stat.wait();
  ASSERT_EQ(r.exit_code, 0) << r.err;
  int threads_with_100 = 0;
  for (const std::string& line : lines_of(r.err))
    if (line.find(",r,100,,") != std::string::npos) ++threads_with_100;
  EXPECT_EQ(threads_with_100, 8) << r.err;
}

TEST_F(CliControl, IntervalJsonHasRegionRowsThatAddUp) {
  Result r = run(
      script({"-j", "-I", "50", "-D", "-1", "--control", channel()},
             "c 'enable a'; w 300; sleep 0.12; w 11; c 'disable a'; sleep 0.06; c 'enable b'; w 7; c 'disable b'\n"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::map<std::string, double> sums;
  for (const std::string& line : lines_of(r.err)) {
    if (line.empty() || line[0] != '{') continue;
    const nlohmann::json row = nlohmann::json::parse(line);
    ASSERT_TRUE(row.contains("interval"));
    const std::string value = row["counter-value"];
    if (value == "<not counted>") continue;
    sums[row.value("region", "")] += std::stod(value);
  }
  EXPECT_EQ(sums[""], 318);
  EXPECT_EQ(sums["a"], 311);
  EXPECT_EQ(sums["b"], 7);
}

TEST_F(CliControl, InheritedDescriptorsAsPerfsExampleOpensThem) {
  // The shell opens the FIFOs read-write on descriptors perfmon inherits (perf's --control fd:).
  const std::string body = "exec 7<>'" + ctl() + "' 8<>'" + ack() + "'\nexec '" PERFMON "' stat -x, -e " +
                           std::string(kEvent) +
                           " -D -1 --control fd:7,8 -- sh -c \"'" WORKER
                           "' getppid 9; echo enable >&7; read -r a <&8; '" WORKER "' getppid 33\"\n";
  Result r = run({"/bin/sh", "-c", body});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::vector<std::pair<std::string, long long>> expected = {{"", 33}};
  EXPECT_EQ(csv_rows(r.err), expected) << r.err;
}

TEST_F(CliControl, DelayCountsFromItsEnd) {
  // Generous margins: the first calls come well inside the delay, the last well after it.
  Result r = run(script({"-x,", "-D", "500"}, "w 20; sleep 1.5; w 30\n"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::vector<std::pair<std::string, long long>> expected = {{"", 30}};
  EXPECT_EQ(csv_rows(r.err), expected) << r.err;
  EXPECT_NE(r.err.find("Events enabled"), std::string::npos);
}

TEST_F(CliControl, RefusalsInOneSentence) {
  Result r = run({PERFMON, "stat", "-D", "-1", "-e", kEvent, "true"});
  EXPECT_EQ(r.exit_code, 129);
  EXPECT_NE(r.err.find("-D -1 starts with counting off: give --control"), std::string::npos) << r.err;
  r = run({PERFMON, "stat", "--control", "pipe:x", "-e", kEvent, "true"});
  EXPECT_EQ(r.exit_code, 129);
  EXPECT_NE(r.err.find("a control channel is fifo:CTL[,ACK]"), std::string::npos) << r.err;
  r = run({PERFMON, "stat", "--control", channel(), "--sets", "task-clock;page-faults", "true"});
  EXPECT_EQ(r.exit_code, 129);
  EXPECT_NE(r.err.find("cannot be combined with --sets"), std::string::npos) << r.err;
  const std::string file = (dir_ / "file").string();
  { std::ofstream(file) << ""; }
  r = run({PERFMON, "stat", "--control", "fifo:" + file, "-e", kEvent, "true"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("is not a FIFO: make the control channel with mkfifo."), std::string::npos) << r.err;
  EXPECT_EQ(lines_of(r.err).size(), 1u) << r.err;
}

// A symlink planted where the ack FIFO should be (in a sticky directory, by another user: the way to
// make root's perfmon write where they choose) is never followed; nor is a FIFO another user owns
// used; the same FIFO under two names is refused before it reads its own acks forever.
TEST_F(CliControl, SymlinksOthersFifosAndOneFifoForBothAreRefused) {
  const std::string target = (dir_ / "roots-fifo").string(), link = (dir_ / "link").string();
  ASSERT_EQ(mkfifo(target.c_str(), 0600), 0);
  ASSERT_EQ(symlink(target.c_str(), link.c_str()), 0);
  Result r = run({PERFMON, "stat", "--control", "fifo:" + ctl() + "," + link, "-e", kEvent, "true"});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find("'" + link + "' is a symlink: give the ack FIFO's own path"), std::string::npos) << r.err;
  r = run({PERFMON, "stat", "--control", "fifo:" + link, "-e", kEvent, "true"});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find("is a symlink: give the control FIFO's own path"), std::string::npos) << r.err;
  if (geteuid() == 0) {
    ASSERT_EQ(chown(target.c_str(), 65534, 65534), 0);
    r = run({PERFMON, "stat", "--control", "fifo:" + ctl() + "," + target, "-e", kEvent, "true"});
    EXPECT_EQ(r.exit_code, 1) << r.err;
    EXPECT_NE(r.err.find("belongs to uid 65534, not to you or root"), std::string::npos) << r.err;
  }
  const std::string second_name = (dir_ / "ctl2").string();
  ASSERT_EQ(::link(ctl().c_str(), second_name.c_str()), 0);
  r = run({PERFMON, "stat", "--control", "fifo:" + ctl() + "," + second_name, "-e", kEvent, "true"});
  EXPECT_EQ(r.exit_code, 1) << r.err;  // found as they are opened, as a FIFO that is not one
  EXPECT_NE(r.err.find("the control and ack channels are the same file"), std::string::npos) << r.err;
  EXPECT_EQ(lines_of(r.err).size(), 1u) << r.err;
}

// An inherited descriptor that is not a FIFO (a socket here) is read without changing its flags:
// they belong to the open file its owner shares, which must not come back non-blocking.
TEST_F(CliControl, AnInheritedSocketKeepsItsFlags) {
  const std::string program =
      "import os, socket, subprocess, sys\n"
      "ours, theirs = socket.socketpair()\n"
      "ours.sendall(b'enable\\n')\n"
      "r = subprocess.run([sys.argv[1], 'stat', '-x,', '-e', sys.argv[3], '-D', '-1', '--control', 'fd:%d' % "
      "theirs.fileno(), '--', sys.argv[2], 'getppid', '21'], pass_fds=[theirs.fileno()], stderr=subprocess.PIPE)\n"
      "print(r.returncode, os.get_blocking(theirs.fileno()), r.stderr.decode().count(sys.argv[3]))\n";
  Result r = run({"/usr/bin/python3", "-c", program, PERFMON, WORKER, kEvent});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "0 True 1\n") << r.err;
}

// A region is named by the user: a name with the separator is quoted in -x rows (its row keeps
// its columns, as a CSV reader takes it), and one with a terminal escape is shown printable.
TEST_F(CliControl, RegionNamesKeepTheirColumnsAndNeverReachTheTerminalRaw) {
  Result r = run(script({"-x,", "--control", channel()}, "c 'enable a,\"b'; w 3; c 'disable a,\"b'\n"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("\n\"a,\"\"b\",3,,syscalls:sys_enter_getppid,"), std::string::npos) << r.err;
  r = run(script({"--control", channel()},
                 "c \"enable $(printf 'x\\033[2Jy')\"; w 2; c \"disable $(printf 'x\\033[2Jy')\"\n"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err.find('\x1b'), std::string::npos) << "a raw escape reached the terminal";
  EXPECT_NE(r.err.find("x\\x1b[2Jy"), std::string::npos) << r.err;
}

// A line far longer than any command is refused once, its start shown, not echoed in pieces.
TEST_F(CliControl, AHugeGarbageLineIsRefusedOnce) {
  Result r = run(script({"-x,", "--control", channel()},
                        "(head -c 5000000 /dev/zero | tr '\\0' x; echo) > '" + ctl() + "'; c ping; w 5\n"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_LT(r.err.size(), 2000u) << r.err.substr(0, 2000);
  std::size_t refusals = 0;
  for (const std::string& line : lines_of(r.err)) refusals += line.find("unknown control command") != std::string::npos;
  EXPECT_EQ(refusals, 1u) << r.err.substr(0, 2000);
  EXPECT_NE(r.err.find("(a line of over 1024 bytes)"), std::string::npos) << r.err.substr(0, 2000);
}

}  // namespace
}  // namespace perfmon::testing
