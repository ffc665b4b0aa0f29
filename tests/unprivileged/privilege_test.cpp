// SPDX-License-Identifier: Apache-2.0
// perfmon as a user without privileges sees it (run as user nobody by tests/unprivileged/as_nobody):
// what the kernel refuses is refused with the real reason, what perfmon narrows it says once, and
// perfmon info reports what such a user may do, tried rather than inferred.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <string>

#include "process.hpp"

namespace perfmon::testing {
namespace {

// perfmon and the worker, where tests/unprivileged/as_nobody staged them for user nobody, or where
// they were built.
std::string staged(const char* variable, const char* built) {
  const char* path = std::getenv(variable);
  return path != nullptr && *path != '\0' ? path : built;
}
const std::string kPerfmon = staged("PERFMON_TEST_PERFMON", PERFMON);
const std::string kWorker = staged("PERFMON_TEST_WORKER", WORKER);

int paranoid() {
  std::ifstream in("/proc/sys/kernel/perf_event_paranoid");
  int level = 0;
  in >> level;
  return level;
}

std::size_t occurrences(const std::string& text, const std::string& part) {
  std::size_t count = 0;
  for (std::size_t at = text.find(part); at != std::string::npos; at = text.find(part, at + 1)) ++count;
  return count;
}

class Unprivileged : public ::testing::Test {
 protected:
  void SetUp() override {
    if (geteuid() == 0)
      GTEST_SKIP() << "running as root: this suite runs as user nobody (tests/unprivileged/as_nobody)";
  }
};

TEST_F(Unprivileged, KernelOnlyEventIsRefusedNotNarrowedToNothing) {
  if (paranoid() < 2) GTEST_SKIP() << "perf_event_paranoid " << paranoid() << " lets users count the kernel";
  Result r = run({kPerfmon, "stat", "-e", "page-faults:k", "--", kWorker, "exit", "0"});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find("counting the kernel needs perf_event_paranoid 1 or less"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("page-faults:ku"), std::string::npos) << r.err;
}

TEST_F(Unprivileged, EventsOfBothRingsCountUserSpaceAndSaySoOnce) {
  if (paranoid() < 2) GTEST_SKIP() << "perf_event_paranoid " << paranoid() << " lets users count the kernel";
  Result r = run({kPerfmon, "stat", "--", kWorker, "exit", "0"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("page-faults:u"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("task-clock:u"), std::string::npos) << r.err;
  EXPECT_EQ(occurrences(r.err, "forbids counting the kernel"), 1u) << r.err;
}

TEST_F(Unprivileged, AnotherUsersProcessIsNamedAsTheReason) {
  Result r = run({kPerfmon, "stat", "-p", "1", "-e", "task-clock"});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find("process 1 belongs to another user (uid 0)"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("':u'"), std::string::npos) << "the advice to add :u is not the way out here: " << r.err;
}

TEST_F(Unprivileged, WholeCpusNeedTheirOwnPermission) {
  if (paranoid() < 1) GTEST_SKIP() << "perf_event_paranoid " << paranoid() << " lets users monitor whole CPUs";
  Result r = run({kPerfmon, "stat", "-a", "-e", "task-clock", "--", kWorker, "exit", "0"});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find("monitoring a whole CPU needs perf_event_paranoid 0 or less"), std::string::npos) << r.err;
}

// perfmon serve needs what counting every CPU needs, no more: without it, one sentence that says
// what to change, before it listens.
TEST_F(Unprivileged, ServeNeedsThePermissionToCountWholeCpus) {
  if (paranoid() < 1) GTEST_SKIP() << "perf_event_paranoid " << paranoid() << " lets users monitor whole CPUs";
  Result r = run({kPerfmon, "serve", "--listen", "127.0.0.1:0", "-e", "task-clock"});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find("monitoring a whole CPU needs perf_event_paranoid 0 or less"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("serving http"), std::string::npos) << "it listened: " << r.err;
}

TEST_F(Unprivileged, InfoSaysWhatWasTriedOnce) {
  Result r = run({kPerfmon, "info"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("this process is unprivileged: perf_event_paranoid " + std::to_string(paranoid()) + "; tried: "),
            std::string::npos)
      << r.out;
  EXPECT_EQ(r.out.find("unprivileged    "), std::string::npos) << "the same facts twice: " << r.out;
  if (paranoid() == 2) {
    EXPECT_NE(r.out.find("tried: own processes, user space only"), std::string::npos) << r.out;
  }
}

TEST_F(Unprivileged, UnreadableTracefsIsNotCalledUnmounted) {
  if (access("/sys/kernel/tracing/events", R_OK | X_OK) == 0) GTEST_SKIP() << "this user may read tracefs here";
  Result r = run({kPerfmon, "stat", "-e", "syscalls:sys_enter_getppid", "--", kWorker, "exit", "0"});
  EXPECT_EQ(r.exit_code, 1) << "a permission problem, not a usage error (129): " << r.err;
  EXPECT_NE(r.err.find("but this user may not read it"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("not mounted"), std::string::npos) << r.err;
}

// A mistake in the text is said before any permission is asked: an event with letters that are not
// modifiers is a usage error (129) as it is for root, not tracefs' refusal.
TEST_F(Unprivileged, ASyntaxErrorIsSaidBeforeTracefsIsAskedAbout) {
  if (access("/sys/kernel/tracing/events", R_OK | X_OK) == 0) GTEST_SKIP() << "this user may read tracefs here";
  Result r = run({kPerfmon, "stat", "-e", "task-clock:zz", "--", kWorker, "exit", "0"});
  EXPECT_EQ(r.exit_code, 129) << r.err;
  EXPECT_NE(r.err.find("'zz' is not a modifier of 'task-clock'"), std::string::npos) << r.err;
}

// perfmon list names the same cause, instead of "no event matches" and a list that offers
// "tracepoint" as the way out.
TEST_F(Unprivileged, ListingTracepointsNamesWhyTheyCannotBeListed) {
  if (access("/sys/kernel/tracing/events", R_OK | X_OK) == 0) GTEST_SKIP() << "this user may read tracefs here";
  for (const char* pattern : {"tracepoint", "syscalls:*"}) {
    Result r = run({kPerfmon, "list", pattern});
    EXPECT_EQ(r.exit_code, 1) << r.err;
    EXPECT_NE(r.err.find("perfmon list: cannot list tracepoints: tracefs is mounted at"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("but this user may not read it"), std::string::npos) << r.err;
    EXPECT_EQ(r.err.find("no event matches"), std::string::npos) << r.err;
  }
  Result all = run({kPerfmon, "list"});
  EXPECT_EQ(all.exit_code, 0) << all.err;
  EXPECT_NE(all.err.find("perfmon list: without tracepoints: tracefs is mounted at"), std::string::npos) << all.err;
}

}  // namespace
}  // namespace perfmon::testing
