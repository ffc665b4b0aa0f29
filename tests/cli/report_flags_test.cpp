// SPDX-License-Identifier: Apache-2.0
// perf report's flags as perfmon report takes them (issue 46), on the worker's call tree sampled on
// every getppid (300 calls under perfmon_branch_a, 100 under perfmon_branch_b): each figure exact,
// and the same table as perf report prints on the same file where perf is installed.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <sstream>

#include "report_fixture.hpp"

namespace perfmon::testing {
namespace {

// The rows of a report's table: lines that are not comments, blank, or call chains; trailing
// blanks gone (perf pads its last column).
std::vector<std::string> table_rows(const std::string& text) {
  std::vector<std::string> rows;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    while (!line.empty() && line.back() == ' ') line.pop_back();
    if (line.empty() || line.starts_with("#")) continue;
    rows.push_back(line);
  }
  return rows;
}

// Each function's (children, self) share from --children --json, by name.
std::map<std::string, std::pair<double, double>> children_and_self(const std::string& json) {
  std::map<std::string, std::pair<double, double>> shares;
  const nlohmann::json document = nlohmann::json::parse(json);
  for (const auto& row : document["events"][0]["rows"])
    shares[row["sym"].get<std::string>()] = {row["children"].get<double>(), row["overhead"].get<double>()};
  return shares;
}

TEST_F(Report, ChildrenAddTheStacksThatPassThroughEachFunction) {
  record_call_tree();
  const auto shares = children_and_self(report({"--children", "--sort", "sym", "--json"}));
  ASSERT_TRUE(shares.contains("syscall") && shares.contains("main")) << report({"--children", "--sort", "sym"});
  EXPECT_EQ(shares.at("syscall"), std::make_pair(100.0, 100.0));  // every sample ends there
  EXPECT_EQ(shares.at("main"), std::make_pair(100.0, 0.0));       // and passes main, which samples none
  EXPECT_EQ(shares.at("perfmon_branch_a"), std::make_pair(75.0, 0.0));
  EXPECT_EQ(shares.at("perfmon_branch_b"), std::make_pair(25.0, 0.0));
  // The table: perf's two columns, rows ranked by Children.
  const std::string table = report({"--children", "--sort", "sym"});
  EXPECT_NE(table.find("# Children      Self  Symbol\n"), std::string::npos) << table;
  const std::vector<std::string> rows = table_rows(table);
  ASSERT_FALSE(rows.empty());
  EXPECT_EQ(rows.back(), "    25.00%     0.00%  [.] perfmon_branch_b") << table;
  // --no-children (the default) is each row's own.
  EXPECT_EQ(table_rows(report({"--no-children", "--sort", "sym"})),
            std::vector<std::string>{"   100.00%  [.] syscall"});
}

TEST_F(Report, CallGraphOrderThresholdAndDepth) {
  record_call_tree();
  auto chains = [&](std::vector<std::string> args) {
    args.insert(args.end(), {"--sort", "sym", "--json"});
    return nlohmann::json::parse(report(args))["events"][0]["rows"][0]["callchains"];
  };
  // Callee order: the sampled function first; caller: the outermost first; --max-stack cuts from the leaf.
  EXPECT_EQ(chains({"-g", "callee", "--max-stack", "3"})[0]["frames"],
            nlohmann::json({"syscall", "perfmon_branch_a", "main"}));
  EXPECT_EQ(chains({"-g", "caller", "--max-stack", "3"})[0]["frames"],
            nlohmann::json({"main", "perfmon_branch_a", "syscall"}));
  EXPECT_EQ(chains({"-G", "--max-stack", "2"})[1]["frames"], nlohmann::json({"perfmon_branch_b", "syscall"}));
  EXPECT_EQ(chains({"--call-graph=graph,0.5,caller", "--max-stack", "1"})[0]["frames"], nlohmann::json({"syscall"}));
  // A threshold over 25% leaves perfmon_branch_b's chain out; none shows no chains.
  EXPECT_EQ(chains({"-g", "30"}).size(), 1u);
  EXPECT_EQ(nlohmann::json::parse(report({"-g", "none", "--json"}))["events"][0]["rows"][0].count("callchains"), 0u);
  Result bad = run({PERFMON, "report", "-i", file_, "-g", "caller,sideways"});
  EXPECT_EQ(bad.exit_code, 129);
  EXPECT_NE(bad.err.find("-g takes graph or none, caller or callee, and a threshold in percent, such as "
                         "'graph,0.5,caller'; not 'sideways'."),
            std::string::npos)
      << bad.err;
}

TEST_F(Report, FiltersKeepTheSamplesOfTheNamedCommandsFilesAndFunctions) {
  record_call_tree();
  EXPECT_EQ(table_rows(report({"--children", "--sort", "sym", "-S", "perfmon_branch_a,perfmon_branch_b"})),
            (std::vector<std::string>{"    75.00%     0.00%  [.] perfmon_branch_a",
                                      "    25.00%     0.00%  [.] perfmon_branch_b"}));
  EXPECT_EQ(table_rows(report({"--dsos", "libc.so.6", "--sort", "dso,sym"})),
            std::vector<std::string>{"   100.00%  libc.so.6      [.] syscall"});
  EXPECT_TRUE(table_rows(report({"--comms", "someone-else"})).empty());
  EXPECT_EQ(table_rows(report({"-c", "perfmon-test-wo", "--sort", "comm"})),
            std::vector<std::string>{"   100.00%  perfmon-test-wo"});
}

TEST_F(Report, FieldsQuietHeaderAndStats) {
  record_call_tree();
  EXPECT_EQ(report({"-q", "-F", "overhead,sample,period,sym"}),
            "   100.00%           400           400  [.] syscall\n");
  const std::string periods = report({"-F", "period,sym"});
  EXPECT_NE(periods.find("#        Period  Symbol\n"), std::string::npos) << periods;
  Result bad = run({PERFMON, "report", "-i", file_, "-F", "overhead,cost"});
  EXPECT_EQ(bad.exit_code, 129);
  EXPECT_NE(bad.err.find("not 'overhead,cost'"), std::string::npos) << bad.err;

  const std::string header = report({"--header-only"});
  EXPECT_TRUE(header.starts_with("# ========\n# captured on    : ")) << header;
  EXPECT_NE(header.find("\n# cmdline : perfmon record -q -g -e syscalls:sys_enter_getppid"), std::string::npos)
      << header;
  EXPECT_NE(header.find("\n# event : name = syscalls:sys_enter_getppid, id = { "), std::string::npos) << header;
  EXPECT_NE(header.find("sample_type = IP|TID|TIME|CALLCHAIN|"), std::string::npos) << header;
  EXPECT_TRUE(header.ends_with("# ========\n#\n")) << header;
  const std::string with_header = report({"--header"});
  EXPECT_TRUE(with_header.starts_with(header) && with_header.find("[.] syscall") != std::string::npos) << with_header;

  const std::string stats = report({"--stats"});
  EXPECT_NE(stats.find("\n          SAMPLE events:        400  ("), std::string::npos) << stats;
  EXPECT_TRUE(stats.ends_with("syscalls:sys_enter_getppid stats:\n          SAMPLE events:        400\n")) << stats;
  Result shaped = run({PERFMON, "report", "-i", file_, "--stats", "--json"});
  EXPECT_EQ(shaped.exit_code, 129);
}

// record -s, report -T: each thread the worker starts counts its own 100 getppid calls, and writes
// them when it exits; perf report -T reads the same rows from the file.
TEST_F(Report, ThreadCountsOfRecordStat) {
  Result r = run({PERFMON, "record", "-q", "-s", "-e", "syscalls:sys_enter_getppid", "-c", "1", "-o", file_, "--",
                  WORKER, "getppid", "100", "--threads", "3"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string report_text = report({"-q", "--sort", "comm", "-T"});
  const std::size_t titles = report_text.find("\n#");  // "#  PID   TID  ...", as wide as the ids
  ASSERT_NE(titles, std::string::npos) << report_text;
  const std::string table = report_text.substr(titles + 1);
  const std::vector<std::string> lines = lines_of(table);
  ASSERT_GE(lines.size(), 3u) << table;
  EXPECT_NE(lines[0].find(" PID "), std::string::npos) << table;
  EXPECT_TRUE(lines[0].ends_with("  syscalls:sys_enter_getppid")) << table;
  // Each started thread's 100 calls; the main thread makes none. Which threads the kernel writes a
  // record for as they go is its own (perf shows the same rows of the same file).
  std::size_t hundreds = 0;
  for (std::size_t i = 1; i < lines.size(); ++i) {
    std::istringstream row(lines[i]);
    long pid = 0, tid = 0, calls = -1;
    row >> pid >> tid >> calls;
    EXPECT_EQ(calls, pid == tid ? 0 : 100) << table;
    hundreds += calls == 100;
  }
  EXPECT_GE(hundreds, 2u) << table;
  if (have_perf()) {
    const Result perf = run({"/usr/bin/perf", "report", "-i", file_, "-T", "--stdio"});
    ASSERT_EQ(perf.exit_code, 0) << perf.err;
    EXPECT_NE(perf.out.find(table), std::string::npos) << perf.out << "\n" << table;
  }
  // Without -s there is nothing to show, and -s needs inherit.
  record_call_tree();
  Result none = run({PERFMON, "report", "-i", file_, "-T"});
  EXPECT_EQ(none.exit_code, 1);
  EXPECT_NE(none.err.find("holds no thread's counts: record with perfmon record -s"), std::string::npos) << none.err;
  EXPECT_EQ(run({PERFMON, "record", "-s", "-i", "-e", "task-clock", "-o", file_, "true"}).exit_code, 129);
}

// The same file through perf report: the same rows for each flag (perf's own default with call
// chains is --children and a graph; both are named here).
TEST_F(Report, FlagsGivePerfReportsRows) {
  if (!have_perf()) GTEST_SKIP() << "Debian's linux-perf is not installed (/usr/bin/perf)";
  record_call_tree();
  const std::vector<std::vector<std::string>> cases = {
      {"--no-children", "-F", "overhead,sample,period,sym"},
      {"--no-children", "-F", "overhead,sym"},
      {"--children", "--sort", "sym"},
      {"--children", "-n", "--sort", "dso,sym"},
      {"--children", "--percent-limit", "80", "--sort", "sym"},
  };
  for (const std::vector<std::string>& flags : cases) {
    std::vector<std::string> ours = {"-q", "-g", "none"},
                             perfs = {"/usr/bin/perf", "report", "-i", file_, "-q", "-g", "none"};
    ours.insert(ours.end(), flags.begin(), flags.end());
    perfs.insert(perfs.end(), flags.begin(), flags.end());
    const Result perf = run(perfs);
    ASSERT_EQ(perf.exit_code, 0) << perf.err;
    EXPECT_EQ(table_rows(report(ours)), table_rows(perf.out)) << ::testing::PrintToString(flags);
  }
  const Result perf_stats = run({"/usr/bin/perf", "report", "-i", file_, "--stats"});
  EXPECT_EQ(report({"--stats"}), perf_stats.out);
}

}  // namespace
}  // namespace perfmon::testing
