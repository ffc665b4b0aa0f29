// SPDX-License-Identifier: Apache-2.0
#include "diagnose/explain.hpp"

#include <gtest/gtest.h>

#include <cerrno>
#include <filesystem>
#include <fstream>

#include "diagnose/host.hpp"
#include "diagnose/privileges.hpp"

namespace perfmon::diagnose {
namespace {

perf_event_attr attr_of(std::uint32_t type, std::uint64_t config) {
  perf_event_attr attr{};
  attr.size = sizeof attr;
  attr.type = type;
  attr.config = config;
  return attr;
}

bool contains(const std::string& text, const char* part) {
  return text.find(part) != std::string::npos;
}

TEST(Explain, EveryMessageNamesTheEventAndEndsWithAFullStop) {
  for (int err : {ENOENT, ENODEV, EOPNOTSUPP, EACCES, EPERM, EINVAL, EMFILE, ESRCH, EBUSY, ENOSPC, E2BIG, ENOSYS,
                  EMSGSIZE, EIO}) {
    std::string text = describe_open_failure(err, attr_of(PERF_TYPE_SOFTWARE, 1), 0, -1, -1, 0, "page-faults");
    EXPECT_EQ(text.rfind("cannot open event 'page-faults': ", 0), 0u) << text;
    EXPECT_EQ(text.back(), '.') << text;
  }
}

TEST(Explain, UnsupportedHardwareEventNamesTheMissingPmu) {
  std::string text = open_failure_cause(ENOENT, attr_of(PERF_TYPE_HARDWARE, 0), 0, -1);
  if (core_pmu_exposed())
    EXPECT_TRUE(contains(text, "does not know this event")) << text;
  else
    EXPECT_TRUE(contains(text, "no hardware PMU is exposed")) << text;
  EXPECT_TRUE(contains(open_failure_cause(ENOENT, attr_of(PERF_TYPE_SOFTWARE, 99), 0, -1), "type 1, config 0x63"));
}

// The unprivileged cases run in the unprivileged suite (tests/unprivileged), as user nobody.
TEST(Explain, PermissionNamesTheCauseAndTheWayOut) {
  std::string text = open_failure_cause(EACCES, attr_of(PERF_TYPE_SOFTWARE, 0), 0, -1);
  std::string cpu_wide = open_failure_cause(EACCES, attr_of(PERF_TYPE_SOFTWARE, 0), -1, 0);
  perf_event_attr kernel_only = attr_of(PERF_TYPE_SOFTWARE, 0);
  kernel_only.exclude_user = 1;
  std::string kernel = open_failure_cause(EACCES, kernel_only, 0, -1);
  if (is_perf_privileged()) {
    for (const std::string& privileged : {text, cpu_wide, kernel})
      EXPECT_TRUE(contains(privileged, "something other than perf_event_paranoid refused it")) << privileged;
    return;
  }
  EXPECT_TRUE(contains(cpu_wide, "monitoring a whole CPU needs perf_event_paranoid 0 or less")) << cpu_wide;
  if (perf_event_paranoid() >= 2) {
    EXPECT_TRUE(contains(text, "add the ':u' modifier")) << text;
    // A kernel-only event is not told to count user space: that would count nothing.
    EXPECT_FALSE(contains(kernel, "':u'")) << kernel;
    EXPECT_TRUE(contains(kernel, "counting the kernel needs perf_event_paranoid 1 or less")) << kernel;
  }
}

TEST(Explain, AnotherUsersProcessIsNamedAsSuch) {
  if (is_perf_privileged())
    GTEST_SKIP() << "privileged: another user's process is this process's to monitor (the unprivileged "
                    "suite runs this test as user nobody)";
  std::string text = open_failure_cause(EACCES, attr_of(PERF_TYPE_SOFTWARE, 0), 1, -1);
  EXPECT_TRUE(contains(text, "process 1 belongs to another user (uid 0)")) << text;
}

TEST(Explain, SpecificCauses) {
  perf_event_attr precise = attr_of(PERF_TYPE_HARDWARE, 0);
  precise.precise_ip = 3;
  EXPECT_TRUE(contains(open_failure_cause(EINVAL, precise, 0, -1), "precise"));
  EXPECT_TRUE(contains(open_failure_cause(EINVAL, attr_of(PERF_TYPE_BREAKPOINT, 0), 0, -1), "breakpoint"));
  EXPECT_TRUE(contains(open_failure_cause(EMFILE, attr_of(1, 0), 0, -1), "ulimit -n"));
  EXPECT_TRUE(contains(open_failure_cause(ESRCH, attr_of(1, 0), 42, -1), "no such process or thread 42"));
  EXPECT_TRUE(contains(open_failure_cause(EBUSY, attr_of(4, 0), 0, -1), "nmi_watchdog"));
  EXPECT_TRUE(contains(open_failure_cause(ENOSPC, attr_of(5, 0), 0, -1), "breakpoint slots"));
  perf_event_attr sampling = attr_of(PERF_TYPE_SOFTWARE, 0);
  sampling.sample_period = 1000;
  EXPECT_TRUE(contains(open_failure_cause(EOPNOTSUPP, sampling, 0, -1), "cannot sample"));
}

// A PMU with a cpumask (uncore, RAPL's power PMU) counts whole CPUs only: told apart by its sysfs
// directory, so that a per-task EINVAL names that and not a config out of range.
TEST(Explain, PmusWithACpumaskCountWholeCpusOnly) {
  char pattern[] = "/tmp/perfmon-devices-XXXXXX";
  const std::filesystem::path devices = mkdtemp(pattern);
  auto pmu = [&](const char* name, const char* type, bool cpumask) {
    std::filesystem::create_directories(devices / name);
    std::ofstream(devices / name / "type") << type << "\n";
    if (cpumask) std::ofstream(devices / name / "cpumask") << "0\n";
  };
  pmu("power", "23", true);
  pmu("cpu", "4", false);
  pmu("uprobe", "9", false);
  EXPECT_TRUE(counts_whole_cpus_only(23, devices.string()));
  EXPECT_FALSE(counts_whole_cpus_only(9, devices.string()));
  EXPECT_FALSE(counts_whole_cpus_only(4, devices.string()));   // perf's raw type: the CPU's own PMU
  EXPECT_FALSE(counts_whole_cpus_only(77, devices.string()));  // no such PMU
  std::filesystem::remove_all(devices);
}

// The library's sentences are for every program that uses it: they name no command or flag of the tool.
TEST(Explain, SentencesNameNoToolFlag) {
  perf_event_attr hardware = attr_of(PERF_TYPE_HARDWARE, 0);
  for (int err : {ENOENT, ENODEV, EOPNOTSUPP, EACCES, EPERM, EINVAL, EMFILE, ESRCH, EBUSY, ENOSPC, E2BIG, ENOSYS,
                  EMSGSIZE, EIO}) {
    for (pid_t pid : {0, -1}) {
      for (int cpu : {-1, 0}) {
        std::string text = open_failure_cause(err, hardware, pid, cpu);
        EXPECT_FALSE(contains(text, "perfmon ")) << text;
        for (const char* flag : {" -e", " -a", " -C", " -p", " -o", "--"}) EXPECT_FALSE(contains(text, flag)) << text;
      }
    }
  }
}

TEST(Explain, ErrnosHaveKinds) {
  EXPECT_EQ(open_error_kind(ENOENT), ErrorKind::Unsupported);
  EXPECT_EQ(open_error_kind(EACCES), ErrorKind::Permission);
  EXPECT_EQ(open_error_kind(ESRCH), ErrorKind::NoSuchTarget);
  EXPECT_EQ(open_error_kind(EMFILE), ErrorKind::Limit);
  EXPECT_EQ(open_error_kind(EINVAL), ErrorKind::InvalidEvent);
  EXPECT_EQ(open_error_kind(EIO), ErrorKind::System);
}

TEST(Explain, UnsupportedErrnos) {
  EXPECT_TRUE(is_unsupported_errno(ENOENT));
  EXPECT_TRUE(is_unsupported_errno(EOPNOTSUPP));
  EXPECT_FALSE(is_unsupported_errno(EACCES));
  EXPECT_FALSE(is_unsupported_errno(EINVAL));
}

}  // namespace
}  // namespace perfmon::diagnose
