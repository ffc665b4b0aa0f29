// SPDX-License-Identifier: Apache-2.0
// -o as a careful user, and a hostile one, would try it: a regular file is replaced whole (mode kept,
// nothing left behind even when killed); a device or a FIFO is written through, never replaced;
// a symlink is followed where the kernel allows it. Device nodes are private ones made with mknod
// in a temporary directory, never the system's.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "process.hpp"

namespace perfmon::testing {
namespace {

namespace fs = std::filesystem;

class OutputFile : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/perfmon-output-XXXXXX";
    dir_ = mkdtemp(pattern);
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  static std::string text_of(const std::string& file) {
    std::stringstream text;
    text << std::ifstream(file).rdbuf();
    return text.str();
  }
  static void write_file(const std::string& file, const std::string& text, mode_t mode) {
    std::ofstream(file) << text;
    chmod(file.c_str(), mode);
  }
  std::set<std::string> names() const {
    std::set<std::string> found;
    for (const auto& entry : fs::directory_iterator(dir_)) found.insert(entry.path().filename());
    return found;
  }
  static Result stat_to(const std::string& output) {
    return run({PERFMON, "stat", "-o", output, "-e", "page-faults", "--", WORKER, "exit", "0"});
  }
  // A private device node like the system's null (1,3) or full (1,7).
  bool make_device(const std::string& file, unsigned minor) const {
    return mknod(file.c_str(), S_IFCHR | 0644, makedev(1, minor)) == 0;
  }

  fs::path dir_;
};

TEST_F(OutputFile, RegularFileIsReplacedWholeKeepingItsMode) {
  const std::string out = path("report.txt");
  write_file(out, "the old report\n", 0600);
  Result r = stat_to(out);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(text_of(out).find("page-faults"), std::string::npos);
  EXPECT_EQ(text_of(out).find("the old report"), std::string::npos);
  struct stat status {};
  ASSERT_EQ(stat(out.c_str(), &status), 0);
  EXPECT_EQ(status.st_mode & 07777, 0600u) << "the mode of the replaced file was not kept";
  EXPECT_EQ(names(), std::set<std::string>{"report.txt"});
}

TEST_F(OutputFile, KilledRunLeavesTheOldFileAndNothingElse) {
  const std::string out = path("report.txt");
  write_file(out, "the old report\n", 0644);
  Process perfmon({PERFMON, "stat", "-v", "-o", out, "-e", "task-clock", "--", WORKER, "sleep", "1000"});
  perfmon.read_stderr_until("counting started");
  perfmon.signal(SIGKILL);
  perfmon.wait();
  EXPECT_EQ(text_of(out), "the old report\n");
  EXPECT_EQ(names(), std::set<std::string>{"report.txt"}) << "a temporary file was left behind";
}

TEST_F(OutputFile, CharacterDeviceIsWrittenThroughNeverReplaced) {
  const std::string out = path("null");
  if (!make_device(out, 3)) GTEST_SKIP() << "cannot make a device node here (needs root): " << strerror(errno);
  Result r = stat_to(out);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  struct stat status {};
  ASSERT_EQ(lstat(out.c_str(), &status), 0);
  EXPECT_TRUE(S_ISCHR(status.st_mode)) << "the device was replaced";
  EXPECT_EQ(status.st_rdev, makedev(1, 3));
  EXPECT_EQ(names(), std::set<std::string>{"null"});
}

TEST_F(OutputFile, FullDeviceReportsTheFailure) {
  const std::string out = path("full");
  if (!make_device(out, 7)) GTEST_SKIP() << "cannot make a device node here (needs root): " << strerror(errno);
  Result r = stat_to(out);
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find("cannot write '" + out + "': No space left on device"), std::string::npos) << r.err;
  struct stat status {};
  ASSERT_EQ(lstat(out.c_str(), &status), 0);
  EXPECT_TRUE(S_ISCHR(status.st_mode)) << "the device was replaced";
}

TEST_F(OutputFile, FifoIsWrittenThrough) {
  const std::string out = path("fifo");
  ASSERT_EQ(mkfifo(out.c_str(), 0644), 0);
  // The reader is there before perfmon opens the FIFO (one without a reader is refused); the
  // report fits in the pipe's buffer, read once perfmon has written it.
  const int reader = open(out.c_str(), O_RDONLY | O_NONBLOCK);
  ASSERT_GE(reader, 0) << strerror(errno);
  Result r = stat_to(out);
  std::string received;
  char chunk[4096];
  for (ssize_t got; (got = read(reader, chunk, sizeof chunk)) > 0;)
    received.append(chunk, static_cast<std::size_t>(got));
  close(reader);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(received.find("page-faults"), std::string::npos) << received;
  struct stat status {};
  ASSERT_EQ(lstat(out.c_str(), &status), 0);
  EXPECT_TRUE(S_ISFIFO(status.st_mode)) << "the FIFO was replaced";
}

// No reader: refused at once, not a hang in open().
TEST_F(OutputFile, FifoWithoutAReaderIsRefusedAtOnce) {
  const std::string out = path("fifo");
  ASSERT_EQ(mkfifo(out.c_str(), 0644), 0);
  Result r = stat_to(out);
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find("cannot write '" + out + "': it is a FIFO that no process is reading; start its reader first."),
            std::string::npos)
      << r.err;
  EXPECT_TRUE(fs::is_fifo(out));
}

// Root replacing another user's file gives the new one back to its owner and group, and never
// keeps a set-user-id or set-group-id bit: a setuid program rewritten must not become setuid-root.
TEST_F(OutputFile, ReplacementKeepsTheOwnerAndDropsSetIdBits) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root, to give the file to another user";
  const std::string out = path("program");
  write_file(out, "old\n", 0755);
  ASSERT_EQ(chown(out.c_str(), 65534, 65534), 0);
  ASSERT_EQ(chmod(out.c_str(), 06755), 0);
  Result r = stat_to(out);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  struct stat status {};
  ASSERT_EQ(stat(out.c_str(), &status), 0);
  EXPECT_EQ(status.st_uid, 65534u);
  EXPECT_EQ(status.st_gid, 65534u);
  EXPECT_EQ(status.st_mode & 07777, 0755u);
  EXPECT_NE(r.err.find("perfmon: replaced '" + out + "', without its set-user-id bit, without its set-group-id bit."),
            std::string::npos)
      << r.err;
  // A file whose owner and mode are kept whole says nothing of it.
  write_file(out, "old\n", 0644);
  Result quiet = stat_to(out);
  EXPECT_EQ(quiet.err.find("perfmon: replaced"), std::string::npos) << quiet.err;
}

// A user who may write another user's file (by its group) replaces it with a file of their own,
// which is not the other user's any more: said, not hidden.
TEST_F(OutputFile, AnOwnerThatCannotBeKeptIsSaid) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root, to set up files of two users";
  const std::string out = path("shared.txt");
  write_file(out, "root's\n", 0664);
  ASSERT_EQ(chown(out.c_str(), 0, 65534), 0);  // root's, group nogroup: writable by user nobody
  ASSERT_EQ(chmod(dir_.c_str(), 0755), 0);
  ASSERT_EQ(chown(dir_.c_str(), 65534, 65534), 0);
  const std::vector<std::string> as_nobody = {"/usr/bin/setpriv", "--reuid=65534",   "--regid=65534",
                                              "--clear-groups",   "--inh-caps=-all", "--"};
  std::vector<std::string> args = as_nobody;
  args.push_back(PERFMON);
  std::vector<std::string> version = args;
  version.emplace_back("--version");
  if (run(version).exit_code != 0) GTEST_SKIP() << "user nobody cannot run " << PERFMON << " from this build directory";
  for (const char* word : {"stat", "-o", "", "-e", "task-clock", "--", "/bin/true"}) args.emplace_back(word);
  args[as_nobody.size() + 3] = out;
  Result r = run(args);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("perfmon: replaced '" + out + "', now owned by uid 65534 (was uid 0)."), std::string::npos)
      << r.err;
  struct stat status {};
  ASSERT_EQ(stat(out.c_str(), &status), 0);
  EXPECT_EQ(status.st_gid, 65534u);
  EXPECT_EQ(status.st_mode & 07777, 0664u);
}

// An ordinary user's own read-only file is refused, as a shell's `>` refuses it; root may write it.
TEST_F(OutputFile, ReadOnlyFileIsRefusedToItsOwner) {
  const std::string out = path("report.txt");
  write_file(out, "keep me\n", 0444);
  std::vector<std::string> as_user;
  if (geteuid() == 0) {
    ASSERT_EQ(chmod(dir_.c_str(), 0755), 0);
    ASSERT_EQ(chown(out.c_str(), 65534, 65534), 0);
    ASSERT_EQ(chown(dir_.c_str(), 65534, 65534), 0);
    as_user = {"/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "--inh-caps=-all", "--"};
    Result reachable = run({as_user[0], as_user[1], as_user[2], as_user[3], as_user[4], "--", PERFMON, "--version"});
    if (reachable.exit_code != 0)
      GTEST_SKIP() << "user nobody cannot run " << PERFMON << " from this build directory: " << reachable.err;
  }
  std::vector<std::string> args = as_user;
  for (const char* word : {PERFMON, "stat", "-o", "", "-e", "task-clock", "--", "/bin/true"}) args.emplace_back(word);
  args[as_user.size() + 3] = out;
  Result r = run(args);
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find("cannot write '" + out + "': it is not writable by you; make it writable (chmod u+w)"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(text_of(out), "keep me\n");
  EXPECT_EQ(names(), std::set<std::string>{"report.txt"});
}

TEST_F(OutputFile, SymlinkIsFollowedAndStaysALink) {
  const std::string target = path("real.txt"), link = path("link.txt");
  write_file(target, "old\n", 0640);
  ASSERT_EQ(symlink(target.c_str(), link.c_str()), 0);
  Result r = stat_to(link);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(fs::is_symlink(link)) << "the symlink was replaced by a file";
  EXPECT_NE(text_of(target).find("page-faults"), std::string::npos);
  struct stat status {};
  ASSERT_EQ(stat(target.c_str(), &status), 0);
  EXPECT_EQ(status.st_mode & 07777, 0640u);
  EXPECT_EQ(names(), (std::set<std::string>{"link.txt", "real.txt"}));
}

TEST_F(OutputFile, SymlinkToADeviceWritesToTheDevice) {
  const std::string device = path("null"), link = path("link");
  if (!make_device(device, 3)) GTEST_SKIP() << "cannot make a device node here (needs root): " << strerror(errno);
  ASSERT_EQ(symlink(device.c_str(), link.c_str()), 0);
  Result r = stat_to(link);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(fs::is_symlink(link));
  EXPECT_TRUE(fs::is_character_file(device));
}

TEST_F(OutputFile, DanglingSymlinkIsRefused) {
  const std::string link = path("link");
  ASSERT_EQ(symlink(path("nothing").c_str(), link.c_str()), 0);
  Result r = stat_to(link);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("it is a symlink to a file that does not exist"), std::string::npos) << r.err;
  EXPECT_EQ(names(), std::set<std::string>{"link"});
}

TEST_F(OutputFile, DirectoryIsRefused) {
  Result r = stat_to(dir_.string());
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("it is a directory"), std::string::npos) << r.err;
}

// Another user plants a symlink in a shared, sticky directory, hoping root writes through it.
TEST_F(OutputFile, PlantedSymlinkInASharedDirectoryIsNotFollowed) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root, to plant a link as another user";
  const std::string victim = path("victim"), shared = path("shared");
  write_file(victim, "precious\n", 0644);
  ASSERT_EQ(chmod(dir_.c_str(), 0755), 0);  // the other user reaches the shared directory
  ASSERT_EQ(mkdir(shared.c_str(), 0), 0);
  ASSERT_EQ(chmod(shared.c_str(), 01777), 0);  // like /tmp
  Result plant = run({"/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "/bin/ln", "-s", victim,
                      shared + "/report.txt"});
  ASSERT_EQ(plant.exit_code, 0) << plant.err;
  Result r = stat_to(shared + "/report.txt");
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find("it is a symlink that another user (uid 65534) put in the shared directory"), std::string::npos)
      << r.err;
  EXPECT_EQ(text_of(victim), "precious\n");
  // The same link of one's own is followed.
  const std::string own = shared + "/own.txt";
  ASSERT_EQ(symlink(victim.c_str(), own.c_str()), 0);
  EXPECT_EQ(stat_to(own).exit_code, 0);
  EXPECT_NE(text_of(victim).find("page-faults"), std::string::npos);
}

// An output that is the input would replace the recording it is made from: refused before anything
// is read, through another path or a link too, the input left as it was.
TEST_F(OutputFile, AnOutputThatIsTheInputIsRefused) {
  const std::string data = path("perf.data"), link = path("link.data");
  write_file(data, "a recording\n", 0600);
  ASSERT_EQ(symlink(data.c_str(), link.c_str()), 0);
  const std::vector<std::vector<std::string>> cases = {
      {PERFMON, "report", "-i", data, "--svg", data},
      {PERFMON, "report", "-i", data, "--pprof", link},
      {PERFMON, "report", "-i", link, "--speedscope", dir_.string() + "/./perf.data"},
      {PERFMON, "report", "-i", path("other.data"), "--svg", data, "--diff", link},
      // report's default input is ./perf.data
      {"/bin/sh", "-c", "cd \"$0\" && exec \"$1\" report --svg perf.data", dir_.string(), PERFMON},
  };
  for (const std::vector<std::string>& args : cases) {
    Result r = run(args);
    EXPECT_EQ(r.exit_code, 129) << r.err;
    EXPECT_NE(r.err.find("which writing would replace; give the output another name"), std::string::npos) << r.err;
    EXPECT_EQ(text_of(data), "a recording\n");
  }
}

}  // namespace
}  // namespace perfmon::testing
