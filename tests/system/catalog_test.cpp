// SPDX-License-Identifier: Apache-2.0
#include <gtest/gtest.h>

#include <set>

#include "events/sources/libpfm.hpp"
#include "perfmon/catalog.hpp"
#include "perfmon/error.hpp"
#include "perfmon/probe.hpp"

namespace perfmon {
namespace {

TEST(SystemCatalog, ResolvesTracepointsFromTracefs) {
  EventCatalog catalog;
  ASSERT_FALSE(catalog.tracefs_root().empty()) << "tracefs is neither mounted nor mountable here";
  Event event = catalog.resolve("syscalls:sys_enter_getppid");
  EXPECT_EQ(event.attr.type, static_cast<std::uint32_t>(PERF_TYPE_TRACEPOINT));
  EXPECT_GT(event.attr.config, 0u);
  EXPECT_EQ(probe_event(event.attr), "");
}

TEST(SystemCatalog, UnknownTracepointSuggestsNeighbours) {
  EventCatalog catalog;
  try {
    catalog.resolve("syscalls:sys_enter_getppdi");
    FAIL();
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find("did you mean 'syscalls:sys_enter_getppid'"), std::string::npos)
        << error.what();
  }
}

TEST(SystemCatalog, SoftwarePmuEventsProbeAsUsable) {
  EventCatalog catalog;
  for (const char* name : {"task-clock", "cpu-clock", "page-faults", "context-switches", "cpu-migrations"})
    EXPECT_EQ(probe_event(catalog.resolve(name).attr), "") << name;
}

TEST(SystemCatalog, EntriesCoverEverySource) {
  EventCatalog catalog;
  std::set<std::string> sources;
  for (const CatalogEntry& entry : catalog.entries()) sources.insert(entry.source);
  for (const char* source : {"hardware", "software", "hw-cache", "tracepoint", "raw", "breakpoint"})
    EXPECT_TRUE(sources.count(source)) << source;
}

TEST(SystemCatalog, EverySysfsNamedEventResolves) {
  EventCatalog catalog;
  for (const CatalogEntry& entry : catalog.entries()) {
    if (entry.source == "pmu") {
      EXPECT_NO_THROW(catalog.resolve(entry.name)) << entry.name;
    }
  }
}

// On an Intel host the core PMU's sysfs aliases and libpfm4's architectural names describe the
// same events; their encodings must agree (tests/unit/sysfs_libpfm_agreement_test.cpp checks a
// Skylake tree on any machine).
TEST(SystemCatalog, HostSysfsEventsAgreeWithLibpfm4) {
  if (!events::libpfm_available()) GTEST_SKIP() << "this build has no libpfm4 (Debian's libpfm4-dev)";
  const std::pair<const char*, const char*> pairs[] = {
      {"cpu-cycles", "UNHALTED_CORE_CYCLES"},
      {"instructions", "INSTRUCTION_RETIRED"},
      {"branch-instructions", "BRANCH_INSTRUCTIONS_RETIRED"},
      {"branch-misses", "MISPREDICTED_BRANCH_RETIRED"},
      {"cache-references", "LONGEST_LAT_CACHE.REFERENCE"},
      {"cache-misses", "LONGEST_LAT_CACHE.MISS"},
  };
  EventCatalog catalog;
  int compared = 0;
  for (const char* pmu : {"cpu", "cpu_core", "cpu_atom"}) {
    for (const auto& [alias, vendor] : pairs) {
      Event sysfs, libpfm;
      try {
        sysfs = catalog.resolve(std::string(pmu) + "/" + alias + "/");
        libpfm = catalog.resolve(vendor);
      } catch (const Error&) {
        continue;  // not named by both on this machine
      }
      EXPECT_EQ(sysfs.attr.config & 0xffffffffULL, libpfm.attr.config & 0xffffffffULL) << pmu << "/" << alias;
      ++compared;
    }
  }
  if (compared == 0)
    GTEST_SKIP()
        << "this machine's core PMU exports no sysfs events that libpfm4 also names (an Intel core PMU "
           "does: cpu/events/instructions and the like; SkylakeSysfs.SysfsAliasesAndLibpfm4AgreeOnEveryEventBothName "
           "checks the same against a Skylake sysfs tree)";
}

}  // namespace
}  // namespace perfmon
