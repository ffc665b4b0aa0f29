// SPDX-License-Identifier: Apache-2.0
// perfmon record as a user runs it, its file read by Debian's perf as perf's own would be: exact
// sample counts through perf script, the spinning function on top of perf report, names from the
// file's event descriptions, no warning from perf; and a file that is complete or not there at all.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <sstream>
#include <string>
#include <thread>

#include "process.hpp"

namespace perfmon::testing {
namespace {

namespace fs = std::filesystem;

class Record : public ::testing::Test {
 protected:
  void SetUp() override {
    if (access("/usr/bin/perf", X_OK) != 0) GTEST_SKIP() << "Debian's linux-perf is not installed (/usr/bin/perf)";
    char pattern[] = "/tmp/perfmon-record-XXXXXX";
    dir_ = mkdtemp(pattern);
    file_ = (dir_ / "perf.data").string();
  }
  void TearDown() override {
    if (!dir_.empty()) fs::remove_all(dir_);
  }
  // perf reading the file; its standard error must hold no warning.
  std::string perf(std::vector<std::string> args) const {
    args.insert(args.begin(), "/usr/bin/perf");
    args.insert(args.end(), {"-i", file_});
    Result r = run(args);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    for (const char* complaint : {"arning", "rror", "nvalid", "failed", "ailed to"})
      EXPECT_EQ(r.err.find(complaint), std::string::npos) << "perf " << args[1] << " said: " << r.err;
    return r.out;
  }
  static std::size_t lines_with(const std::string& text, const std::string& part) {
    std::size_t count = 0;
    std::istringstream lines(text);
    for (std::string line; std::getline(lines, line);) count += line.find(part) != std::string::npos;
    return count;
  }

  fs::path dir_;
  std::string file_;
};

TEST_F(Record, TracepointSamplesAreEveryCallInPerfScript) {
  Result r = run({PERFMON, "record", "-q", "-e", "syscalls:sys_enter_getppid", "-c", "1", "-o", file_, "--", WORKER,
                  "getppid", "1000", "--threads", "2"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  EXPECT_EQ(lines_with(perf({"script"}), "syscalls:sys_enter_getppid"), 2000u);
  // The event's name and attr, as perf evlist reads them from the file.
  const std::string evlist = perf({"evlist", "-v"});
  EXPECT_NE(evlist.find("syscalls:sys_enter_getppid: type: 2"), std::string::npos) << evlist;
  EXPECT_NE(evlist.find("{ sample_period, sample_freq }: 1,"), std::string::npos) << evlist;
}

// A recording whose events may sample the kernel keeps the kernel's symbols for the report after
// it (docs/cli.md), which then names kernel addresses as a report that read /proc/kallsyms does;
// one of user space alone keeps none.
TEST_F(Record, KeepsTheKernelsSymbolsForTheReportAfterIt) {
  const std::string kept = (dir_ / "kept").string(), user_only = (dir_ / "user-only").string();
  // A context switch is sampled in the kernel's scheduler.
  Result r = run({"/usr/bin/env", "XDG_CACHE_HOME=" + kept, PERFMON, "record", "-q", "-e", "context-switches", "-c",
                  "1", "-o", file_, "--", WORKER, "sleep", "5"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  struct stat copy {};
  ASSERT_EQ(stat((kept + "/perfmon/kernel-symbols").c_str(), &copy), 0) << "no copy of the kernel's symbols kept";
  EXPECT_EQ(copy.st_mode & 0777, 0600u);
  const std::vector<std::string> report = {PERFMON, "report", "--stdio", "--sort", "sym", "-i", file_};
  std::vector<std::string> from_copy = {"/usr/bin/env", "XDG_CACHE_HOME=" + kept};
  from_copy.insert(from_copy.end(), report.begin(), report.end());
  std::vector<std::string> from_kallsyms = {"/usr/bin/env", "XDG_CACHE_HOME=" + (dir_ / "none").string()};
  from_kallsyms.insert(from_kallsyms.end(), report.begin(), report.end());
  const Result named = run(from_copy), read = run(from_kallsyms);
  ASSERT_EQ(named.exit_code, 0) << named.err;
  EXPECT_NE(named.out.find("[k] schedule"), std::string::npos) << named.out;
  EXPECT_EQ(named.out, read.out);

  r = run({"/usr/bin/env", "XDG_CACHE_HOME=" + user_only, PERFMON, "record", "-q", "-e", "task-clock:u", "-o",
           (dir_ / "user.data").string(), "--", WORKER, "getppid", "100"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_FALSE(fs::exists(user_only + "/perfmon/kernel-symbols")) << "a recording of user space kept them";
}

TEST_F(Record, SpinningFunctionTopsPerfReport) {
  Result r = run({PERFMON, "record", "-e", "cpu-clock", "-o", file_, "--", WORKER, "loop", "400000000"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("[ perfmon record: wrote "), std::string::npos) << r.err;
  const std::string report = perf({"report", "--stdio", "--sort", "sym"});
  // The first row: "    97.12%  [.] perfmon_spin".
  std::istringstream rows(report);
  std::string row;
  while (std::getline(rows, row) && (row.empty() || row[0] == '#')) {
  }
  ASSERT_NE(row.find("perfmon_spin"), std::string::npos) << report;
  EXPECT_GE(std::stod(row), 90.0) << report;
  // Kernel samples land in the kernel's map, not in an unknown one. (A symbol may be "[unknown]":
  // the loader and libgcc_s have none on Debian, and a sample there is rare but real.)
  const std::string perf_script = perf({"script"});
  const std::size_t unknown = perf_script.find("([unknown])");
  EXPECT_EQ(unknown, std::string::npos) << perf_script.substr(perf_script.rfind('\n', unknown) + 1, 200);
  // perfmon script names the same function for the same samples.
  Result script = run({PERFMON, "script", "-i", file_});
  ASSERT_EQ(script.exit_code, 0) << script.err;
  const double in_loop = static_cast<double>(lines_with(script.out, " perfmon_spin+0x"));
  EXPECT_GE(in_loop, 0.9 * static_cast<double>(lines_with(script.out, " cpu-clock: "))) << script.out.substr(0, 1000);
}

TEST_F(Record, FilterKeepsTheSamplesThatPassIt) {
  // A ring that holds them all: on a busy machine the default one filled before it was drained
  // and 34 of 3,000 samples were lost (counted, not in the file).
  ASSERT_EQ(run({PERFMON, "record", "-q", "-m", "1024", "-e", "exceptions:page_fault_user", "-c", "1", "--filter",
                 "error_code & 2", "-o", file_, "--", WORKER, "touch", "3000"})
                .exit_code,
            0);
  // Every sample is a write fault: perf script prints the fields of each.
  const std::string script = perf({"script"});
  const std::size_t samples = lines_with(script, "exceptions:page_fault_user");
  EXPECT_GE(samples, 3000u);
  std::size_t writes = 0;
  std::istringstream lines(script);
  for (std::string line; std::getline(lines, line);)
    if (const std::size_t at = line.find("error_code=0x"); at != std::string::npos)
      writes += (std::stoul(line.substr(at + 13), nullptr, 16) & 2) != 0;
  EXPECT_EQ(writes, samples) << script.substr(0, 2000);
}

TEST_F(Record, CallchainsReachPerfScript) {
  ASSERT_EQ(run({PERFMON, "record", "-q", "-g", "-e", "syscalls:sys_enter_getppid", "-c", "1", "-o", file_, "--",
                 WORKER, "getppid", "100"})
                .exit_code,
            0);
  // perf script prints each sample's chain below it, one indented frame a line.
  const std::string script = perf({"script"});
  EXPECT_EQ(lines_with(script, "syscalls:sys_enter_getppid"), 100u);
  EXPECT_GE(lines_with(script, "\t"), 100u) << script.substr(0, 2000);
}

// Every sample is accounted for: written, or counted as lost by its event (the kernel's own count,
// in the file as PERF_RECORD_LOST_SAMPLES) in the summary's "N samples lost" and perfmon report's
// "Total Lost Samples"; the records of any kind a full ring dropped (PERF_RECORD_LOST) are said
// apart, never added to the samples (62 written + 139 records said as 201 samples, once). Big
// stack copies into a small ring lose most of them.
TEST_F(Record, EveryDroppedSampleIsCounted) {
  for (int attempt = 0; attempt < 4; ++attempt) {
    Result r = run({PERFMON, "record", "-e", "syscalls:sys_enter_getppid", "-c", "1", "--call-graph", "dwarf,1024",
                    "-m", "4", "-o", file_, "--", WORKER, "getppid", "200"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    unsigned long written = 0, lost = 0;
    const std::size_t at = r.err.find("[ perfmon record: wrote ");
    ASSERT_NE(at, std::string::npos) << r.err;
    written = std::stoul(r.err.substr(at + 24));
    if (const std::size_t said = r.err.find(" samples lost"); said != std::string::npos)
      lost = std::stoul(r.err.substr(r.err.rfind(", ", said) + 2));
    EXPECT_EQ(r.err.find(" records lost (samples and others"), std::string::npos) << "this kernel counts samples";
    EXPECT_EQ(written + lost, 200u) << r.err;
    Result script = run({PERFMON, "script", "-i", file_});
    EXPECT_EQ(lines_with(script.out, "syscalls:sys_enter_getppid"), written);
    Result report = run({PERFMON, "report", "-i", file_});
    EXPECT_NE(report.out.find("# Total Lost Samples: " + std::to_string(lost) + "\n"), std::string::npos)
        << report.out.substr(0, 300);
  }
}

// A new perf.data holds command lines, paths and kernel addresses: its maker's alone, as perf makes
// it. A file replaced keeps its mode.
TEST_F(Record, ANewFileIsItsMakersAlone) {
  auto record = [&] {
    return run({PERFMON, "record", "-q", "-e", "syscalls:sys_enter_getppid", "-c", "1", "-o", file_, "--", WORKER,
                "getppid", "10"});
  };
  ASSERT_EQ(record().exit_code, 0);
  struct stat status {};
  ASSERT_EQ(stat(file_.c_str(), &status), 0);
  EXPECT_EQ(status.st_mode & 07777, 0600u);
  ASSERT_EQ(chmod(file_.c_str(), 0640), 0);
  ASSERT_EQ(record().exit_code, 0);
  ASSERT_EQ(stat(file_.c_str(), &status), 0);
  EXPECT_EQ(status.st_mode & 07777, 0640u);
}

TEST_F(Record, BuildIdsOfTheKernelAndTheMappedFilesAreListed) {
  ASSERT_EQ(run({PERFMON, "record", "-q", "-e", "cpu-clock", "-o", file_, "--", WORKER, "loop", "1000000"}).exit_code,
            0);
  const std::string ids = perf({"buildid-list"});
  EXPECT_EQ(lines_with(ids, " [kernel.kallsyms]"), 1u) << ids;
  EXPECT_EQ(lines_with(ids, std::string(" ") + WORKER), 1u) << ids;
  EXPECT_EQ(lines_with(ids, "/libc.so"), 1u) << ids;
}

// A process that runs already: its threads' names and its mappings are synthesized, as perf does,
// so that perf shows the program's name, not ":PID".
TEST_F(Record, AttachedProcessIsSampledUntilItExitsUnderItsName) {
  Process worker({WORKER, "getppid", "500", "--threads", "2", "--wait-stdin"});
  const std::string ready = worker.read_stdout_until("\n");
  const std::string pid = ready.substr(ready.find(' ') + 1, ready.find('\n') - ready.find(' ') - 1);
  Process record({PERFMON, "record", "-v", "-e", "syscalls:sys_enter_getppid", "-c", "1", "-o", file_, "-p", pid});
  record.read_stderr_until("recording started");
  worker.write_stdin("go\n");
  worker.wait();
  Result r = record.wait();
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string script = perf({"script", "-F", "comm,event"});
  EXPECT_EQ(lines_with(script, "perfmon-test-wo"), 1000u) << script.substr(0, 500);
}

TEST_F(Record, SystemWideWhileACommandRuns) {
  Result r = run({PERFMON, "record", "-q", "-a", "-e", "syscalls:sys_enter_getppid", "-c", "1", "-o", file_, "--",
                  WORKER, "getppid", "700"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // Other processes may call getppid too; the command's calls are all there, under its name.
  EXPECT_EQ(lines_with(perf({"script", "-F", "comm,event"}), "perfmon-test-wo"), 700u);
}

// perfmon script reads what perfmon record wrote, and what perf record wrote, sample for sample.
TEST_F(Record, ScriptPrintsEverySampleOfEitherRecorder) {
  ASSERT_EQ(run({PERFMON, "record", "-q", "-e", "syscalls:sys_enter_getppid", "-c", "1", "-o", file_, "--", WORKER,
                 "getppid", "300"})
                .exit_code,
            0);
  Result ours = run({PERFMON, "script", "-i", file_});
  ASSERT_EQ(ours.exit_code, 0) << ours.err;
  EXPECT_EQ(lines_with(ours.out, " syscalls:sys_enter_getppid: "), 300u) << ours.out.substr(0, 500);
  EXPECT_EQ(lines_with(ours.out, "perfmon-test-wo"), 300u);
  // Each call comes from libc's syscall wrapper, named as perf names it.
  EXPECT_EQ(lines_with(ours.out, " syscall+0x"), 300u) << ours.out.substr(0, 500);
  EXPECT_EQ(lines_with(ours.out, "/libc.so.6)"), 300u) << ours.out.substr(0, 500);
  Result json = run({PERFMON, "script", "--json", "-i", file_});
  ASSERT_EQ(json.exit_code, 0) << json.err;
  EXPECT_EQ(lines_with(json.out, "\"event\":\"syscalls:sys_enter_getppid\""), 300u);

  const std::string theirs = (dir_ / "perf-record.data").string();
  ASSERT_EQ(run({"/usr/bin/perf", "record", "-q", "-e", "syscalls:sys_enter_getppid", "-c", "1", "-o", theirs, "--",
                 WORKER, "getppid", "200"})
                .exit_code,
            0);
  Result read = run({PERFMON, "script", "-i", theirs});
  ASSERT_EQ(read.exit_code, 0) << read.err;
  EXPECT_EQ(lines_with(read.out, "perfmon-test-wo"), 200u) << read.out.substr(0, 500);
}

// Cut short anywhere, or not a perf.data file at all: one sentence naming the offset, exit 1.
TEST_F(Record, ScriptRefusesTruncatedFilesNamingTheOffset) {
  ASSERT_EQ(run({PERFMON, "record", "-q", "-e", "cpu-clock", "-o", file_, "--", WORKER, "exit", "0"}).exit_code, 0);
  const auto size = fs::file_size(file_);
  const std::string cut = (dir_ / "cut.data").string();
  for (std::uintmax_t keep :
       {std::uintmax_t{0}, std::uintmax_t{60}, std::uintmax_t{104}, std::uintmax_t{200}, size / 2, size - 1}) {
    fs::copy_file(file_, cut, fs::copy_options::overwrite_existing);
    fs::resize_file(cut, keep);
    Result r = run({PERFMON, "script", "-i", cut});
    EXPECT_EQ(r.exit_code, 1) << keep << ": " << r.err;
    EXPECT_NE(r.err.find("is not a whole perf.data file: at offset "), std::string::npos) << keep << ": " << r.err;
  }
  Result other = run({PERFMON, "script", "-i", "/etc/hostname"});
  EXPECT_EQ(other.exit_code, 1);
  EXPECT_NE(other.err.find("is not a perf.data file"), std::string::npos) << other.err;
}

TEST_F(Record, TheHeaderDescribesTheMachine) {
  ASSERT_EQ(run({PERFMON, "record", "-q", "-e", "cpu-clock", "-o", file_, "--", WORKER, "exit", "0"}).exit_code, 0);
  const std::string header = perf({"report", "--header-only"});
  for (const char* line : {"# hostname : ", "# os release : ", "# arch : ", "# nrcpus online : ", "# total memory : ",
                           "# cmdline : ", "# event : name = cpu-clock"})
    EXPECT_NE(header.find(line), std::string::npos) << line << " in\n" << header;
  EXPECT_NE(header.find("perfmon record -q -e cpu-clock"), std::string::npos) << header;
}

TEST_F(Record, TheCommandsStatusIsRecordsStatus) {
  EXPECT_EQ(run({PERFMON, "record", "-q", "-o", file_, "--", WORKER, "exit", "3"}).exit_code, 3);
  Result missing = run({PERFMON, "record", "-q", "-o", file_ + ".2", "--", "/nonexistent/program"});
  EXPECT_EQ(missing.exit_code, 127) << missing.err;
  EXPECT_FALSE(fs::exists(file_ + ".2")) << "a run that recorded nothing left a file";
}

TEST_F(Record, TerminatedRunStillWritesACompleteFile) {
  Process record({PERFMON, "record", "-q", "-e", "cpu-clock", "-o", file_, "--", WORKER, "spin", "5000"});
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  record.signal(SIGTERM);  // passed to the command, whose end ends the recording
  Result r = record.wait();
  EXPECT_EQ(r.exit_code, 128 + SIGTERM) << r.err;
  EXPECT_GT(lines_with(perf({"script"}), "cpu-clock"), 0u);
}

// A full disk, on a private 64 KiB tmpfs: one sentence, exit 1, and no file, partial or temporary.
TEST_F(Record, AFullDiskLeavesNothingBehind) {
  const fs::path small = dir_ / "small";
  fs::create_directory(small);
  if (mount("tmpfs", small.c_str(), "tmpfs", 0, "size=64k") != 0)
    GTEST_SKIP() << "cannot mount a small tmpfs here (needs root): " << strerror(errno);
  Result r = run(
      {PERFMON, "record", "-q", "-e", "cpu-clock", "-o", (small / "perf.data").string(), "--", WORKER, "spin", "1000"});
  const bool empty = fs::is_empty(small);
  umount(small.c_str());
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("No space left on device; free some space"), std::string::npos) << r.err;
  EXPECT_TRUE(empty) << "a failed recording left a file";
}

TEST_F(Record, AFileThatCannotBeSeekedIsRefusedAndLeftAlone) {
  const std::string device = (dir_ / "null").string();
  if (mknod(device.c_str(), S_IFCHR | 0644, makedev(1, 3)) != 0) GTEST_SKIP() << "cannot make a device node here";
  Result r = run({PERFMON, "record", "-q", "-o", device, "--", WORKER, "exit", "0"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("needs a regular file"), std::string::npos) << r.err;
  struct stat status {};
  ASSERT_EQ(stat(device.c_str(), &status), 0);
  EXPECT_TRUE(S_ISCHR(status.st_mode));
}

}  // namespace
}  // namespace perfmon::testing
