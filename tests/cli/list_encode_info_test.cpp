// SPDX-License-Identifier: Apache-2.0
// perfmon list, encode, decode and info as a user runs them, and the CPU-model tables they read:
// FreeBSD's Core Solo/Duo table, another model's events through libpfm4, the PMU said truthfully.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "arch/x86/cpuid.hpp"
#include "process.hpp"
#include "stat_command_line.hpp"

namespace perfmon::testing {
namespace {

TEST(CliList, ListsSoftwareEventsAsUsable) {
  Result r = run({PERFMON, "list", "sw"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("task-clock"), std::string::npos);
  EXPECT_EQ(r.out.find("[not usable here] time the task ran"), std::string::npos);
  Result json = run({PERFMON, "list", "--json", "getppid"});
  ASSERT_EQ(json.exit_code, 0);
  for (const std::string& line : lines_of(json.out)) EXPECT_EQ(nlohmann::json::parse(line)["source"], "tracepoint");
  EXPECT_EQ(run({PERFMON, "list", "no-such-event-anywhere"}).exit_code, 1);
}

TEST(CliHelp, HelpOfACommandIsItsOwnAsPerfHelpOpensItsPage) {
  const Result help = run({PERFMON, "help", "stat"});
  ASSERT_EQ(help.exit_code, 0) << help.err;
  EXPECT_EQ(help.out, run({PERFMON, "stat", "--help"}).out);
  EXPECT_NE(help.out.find("usage: perfmon stat"), std::string::npos);
  const Result general = run({PERFMON, "help"});
  ASSERT_EQ(general.exit_code, 0);
  EXPECT_NE(general.out.find("perfmon help <command>"), std::string::npos);
}

TEST(CliEncode, DecodesAPerfEvtSelValueAndNamesTheEvent) {
  Result r = run({PERFMON, "decode", "0x4100c0"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("event select  7:0   0xc0"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("USR             16  1"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("EN              22  1"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("INST_RETIRED.ANY_P (Intel architectural: Instructions Retired)"), std::string::npos);
  EXPECT_NE(r.out.find("perf attr:   type=4 config=0xc0 exclude_kernel"), std::string::npos) << r.out;
  Result reserved = run({PERFMON, "decode", "0x100000000"});
  EXPECT_EQ(reserved.exit_code, 129);
  EXPECT_NE(reserved.err.find("bits 63:32 are reserved"), std::string::npos);
}

TEST(CliEncode, EncodesArchitecturalAndPerfEvents) {
  Result r = run({PERFMON, "encode", "INST_RETIRED.ANY", "LONGEST_LAT_CACHE.MISS:u", "page-faults"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("fixed counter 0, IA32_FIXED_CTR0 at MSR 309H"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("PERFEVTSEL:  0x51412e"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("perf attr:   type=1 config=0x2"), std::string::npos) << r.out;
  Result unknown = run({PERFMON, "encode", "INST_RETIRED.ANYY"});
  EXPECT_EQ(unknown.exit_code, 129);
}

TEST(CliEncode, EncodesForAnotherCpuModel) {
  Result r = run({PERFMON, "encode", "--pmu", "skl", "UOPS_ISSUED.STALL_CYCLES", "L2_RQSTS.MISS:c=2:u"});
  if (r.err.find("libpfm4 cannot be used here") != std::string::npos) GTEST_SKIP() << r.err;
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("perf attr:   type=4 config=0x180010e\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("PERFEVTSEL:  0x1d3010e (event=0x0e,umask=0x01,usr,os,int,en,inv,cmask=0x01)"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("perf attr:   type=4 config=0x2003f24 exclude_kernel"), std::string::npos) << r.out;
  Result unknown = run({PERFMON, "encode", "--pmu", "no-such-model", "INST_RETIRED.ANY_P"});
  EXPECT_EQ(unknown.exit_code, 129);
  EXPECT_NE(unknown.err.find("no CPU model 'no-such-model'; libpfm4 knows: "), std::string::npos) << unknown.err;
  EXPECT_NE(unknown.err.find("; perfmon's own table: coreduo."), std::string::npos) << unknown.err;
}

TEST(CliEncode, EncodesAndDecodesFreeBsdPmcCoreSpecifiers) {
  Result r = run({PERFMON, "encode", "--pmu", "coreduo", "pmc.core/L2_Rqsts,core=all,prefetch=only,cachestate=mi,usr/",
                  "pmc.core/Div/"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("PERFEVTSEL:  0x51d92e (event=0x2e,umask=0xd9,usr,int,en)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("counters:    PMC1 only"), std::string::npos) << r.out;
  Result decoded = run({PERFMON, "decode", "--pmu", "coreduo", "0x51d92e"});
  ASSERT_EQ(decoded.exit_code, 0) << decoded.err;
  EXPECT_NE(decoded.out.find("pmc.core/L2_Rqsts,core=all,prefetch=only,cachestate=mi,usr/ (coreduo)"),
            std::string::npos)
      << decoded.out;
  Result unsupported = run({PERFMON, "encode", "--pmu", "coreduo", "pmc.core/dc-misses/"});
  EXPECT_EQ(unsupported.exit_code, 129);
  EXPECT_NE(unsupported.err.find("'dc-misses' is unsupported on Intel Core Solo/Duo"), std::string::npos);
  Result group = run({PERFMON, "encode", "--pmu", "coreduo", "{pmc.core/Div/,pmc.core/Mul/}"});
  EXPECT_EQ(group.exit_code, 129);
  EXPECT_NE(group.err.find("pmc.core/Mul/ counts only on PMC1"), std::string::npos) << group.err;
}

TEST(CliStat, RefusesPmcCoreEventsOnAnotherCpu) {
  auto host = arch::host_x86_signature();
  if (host && host->vendor == "GenuineIntel" && host->family == 6 && host->model == 14)
    GTEST_SKIP() << "this is an Intel Core Solo/Duo, where pmc.core events are this CPU's own";
  Result r = run(stat({"-e", "pmc.core/Div/", "--", WORKER, "exit", "0"}));
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find("pmc.core events belong to Intel Core Solo/Duo (family 6, model 14)"), std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("\nRun 'perfmon encode --pmu MODEL EVENT' for its encoding on that CPU model."),
            std::string::npos)
      << r.err;
}

// libpfm4 is loaded when a CPU-model name first needs it: hidden (an empty file bound over it in a
// private mount namespace), such a name is refused with what to install, and the rest still counts.
TEST(CliStat, ModelNamesWithoutLibpfm4SayWhatToInstall) {
  if (geteuid() != 0) GTEST_SKIP() << "hiding libpfm.so.4 needs a private mount namespace, which needs root";
  std::string library;
  for (const char* path : {"/lib/x86_64-linux-gnu/libpfm.so.4", "/usr/lib/x86_64-linux-gnu/libpfm.so.4",
                           "/lib/aarch64-linux-gnu/libpfm.so.4", "/usr/lib/aarch64-linux-gnu/libpfm.so.4"})
    if (std::filesystem::exists(path)) library = std::filesystem::canonical(path);
  if (library.empty()) GTEST_SKIP() << "libpfm.so.4 is not installed: nothing to hide";
  const std::string empty = ::testing::TempDir() + "/perfmon-empty-library";
  std::ofstream(empty).close();
  auto hidden = [&](const std::string& event) {
    return run({"/usr/bin/unshare", "--mount", "--propagation", "private", "sh", "-c",
                "mount --bind \"$0\" \"$1\" && exec \"$2\" stat -x, -e \"$3\" -- \"$4\" exit 0", empty, library,
                PERFMON, event, WORKER});
  };
  Result model = hidden("INST_RETIRED.ANY_P:u");
  if (model.err.find("mount") == 0 || model.err.find("unshare:") != std::string::npos)
    GTEST_SKIP() << "no private mount namespace here: " << model.err;
  EXPECT_EQ(model.exit_code, 1) << "the machine lacks a library: not a usage error (129)\n" << model.err;
  EXPECT_NE(model.err.find("model-specific event names need libpfm4, which cannot be loaded ("), std::string::npos)
      << model.err;
  EXPECT_NE(model.err.find("install Debian's libpfm4 package."), std::string::npos) << model.err;
  Result generic = hidden("page-faults");
  EXPECT_EQ(generic.exit_code, 0) << generic.err;
  EXPECT_EQ(csv_values(generic.err, "page-faults").size(), 1u) << generic.err;
}

TEST(CliList, ListsThePmcCoreTable) {
  Result r = run({PERFMON, "list", "--pmu", "coreduo", "*Div*"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("pmc.core/Cycles_Div_Busy/"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("[PMC1 only]"), std::string::npos) << r.out;
  Result json = run({PERFMON, "list", "--json", "pmc.core"});
  ASSERT_EQ(json.exit_code, 0) << json.err;
  std::vector<std::string> rows = lines_of(json.out);
  EXPECT_EQ(rows.size(), 132u);
  auto first = nlohmann::json::parse(rows.at(0));
  EXPECT_EQ(first["source"], "pmc.core");
  EXPECT_EQ(first["name"], "pmc.core/BAClears/");
}

TEST(CliList, ListsAnotherCpuModelsEvents) {
  Result r = run({PERFMON, "list", "--pmu", "skl", "L2_RQSTS"});
  if (r.exit_code == 1 && r.err.find("none (libpfm4 cannot be used here)") != std::string::npos) GTEST_SKIP() << r.err;
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("L2_RQSTS.MISS "), std::string::npos) << r.out;
  Result json = run({PERFMON, "list", "--json", "--pmu", "amd64_fam19h_zen3", "RETIRED_INSTRUCTIONS"});
  ASSERT_EQ(json.exit_code, 0) << json.err;
  auto first = nlohmann::json::parse(lines_of(json.out).at(0));
  EXPECT_EQ(first["source"], "vendor");
  EXPECT_EQ(first["pmu"], "amd64_fam19h_zen3");
  EXPECT_EQ(run({PERFMON, "list", "--pmu", "no-such-model"}).exit_code, 1);
}

TEST(CliInfo, ExplainsTheHardwarePmuTruthfully) {
  Result r = run({PERFMON, "info", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto info = nlohmann::json::parse(r.out);
  Result probe = run(stat({"-x,", "-e", "instructions", "--", WORKER, "exit", "0"}));
  bool counts_instructions = probe.err.find("<not supported>") == std::string::npos;
  EXPECT_EQ(info["hardware_pmu"].get<bool>(), counts_instructions) << r.out << probe.err;
  if (!counts_instructions) {
    std::string why = info["hardware_pmu_explanation"];
    EXPECT_NE(why.find(info["hypervisor"].get<bool>() ? "virtual machine" : "registered no core PMU"),
              std::string::npos)
        << why;
  }
  EXPECT_EQ(info["root"].get<bool>(), geteuid() == 0);
  Result text = run({PERFMON, "info"});
  EXPECT_NE(text.out.find("hardware PMU"), std::string::npos);
  EXPECT_NE(text.out.find("perf_event_paranoid"), std::string::npos);
}

}  // namespace
}  // namespace perfmon::testing
