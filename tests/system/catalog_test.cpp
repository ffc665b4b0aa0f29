#include <gtest/gtest.h>

#include <set>

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

}  // namespace
}  // namespace perfmon
