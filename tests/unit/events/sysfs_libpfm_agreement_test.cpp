// SPDX-License-Identifier: Apache-2.0
// Where sysfs and libpfm4 both name an event, perfmon's two paths to an attr must agree: sysfs
// terms packed through the PMU's format files, and libpfm4's encoding for the same model.
#include <gtest/gtest.h>
#include <map>

#include "events/sources/libpfm.hpp"
#include "perfmon/catalog.hpp"
#include "sysfs_tree.hpp"

namespace perfmon::events {
namespace {

// The Skylake core PMU's sysfs tree as Linux lays it out (arch/x86/events/intel/core.c and
// perf_event.h: format/ and the events/ aliases), with the libpfm4 names of the same events.
const std::map<std::string, std::pair<std::string, std::string>> kSkylakeEvents = {
    // sysfs alias          its terms                          libpfm4 (skl)
    {"cpu-cycles", {"event=0x3c", "UNHALTED_CORE_CYCLES"}},
    {"instructions", {"event=0xc0", "INSTRUCTION_RETIRED"}},
    {"branch-instructions", {"event=0xc4", "BRANCH_INSTRUCTIONS_RETIRED"}},
    {"branch-misses", {"event=0xc5", "MISPREDICTED_BRANCH_RETIRED"}},
    {"cache-references", {"event=0x2e,umask=0x4f", "LONGEST_LAT_CACHE:REFERENCE"}},
    {"cache-misses", {"event=0x2e,umask=0x41", "LONGEST_LAT_CACHE:MISS"}},
    {"bus-cycles", {"event=0x3c,umask=0x01", "CPU_CLK_THREAD_UNHALTED:REF_XCLK"}},
    {"ref-cycles", {"event=0x00,umask=0x03", "UNHALTED_REFERENCE_CYCLES"}},
    {"mem-stores", {"event=0xd0,umask=0x82", "MEM_INST_RETIRED:ALL_STORES"}},
    {"mem-loads", {"event=0xcd,umask=0x1,ldlat=3", "MEM_TRANS_RETIRED:LOAD_LATENCY:ldlat=3"}},
};

class SkylakeSysfs : public testing::SysfsTree {
 protected:
  void SetUp() override {
    write("cpu/type", "4");
    write("cpu/format/event", "config:0-7");
    write("cpu/format/umask", "config:8-15");
    write("cpu/format/edge", "config:18");
    write("cpu/format/pc", "config:19");
    write("cpu/format/any", "config:21");
    write("cpu/format/inv", "config:23");
    write("cpu/format/cmask", "config:24-31");
    write("cpu/format/ldlat", "config1:0-15");
    write("cpu/caps/pmu_name", "skylake");
    for (const auto& [alias, definition] : kSkylakeEvents) write("cpu/events/" + alias, definition.first);
  }
};

TEST_F(SkylakeSysfs, SysfsAliasesAndLibpfm4AgreeOnEveryEventBothName) {
  if (!libpfm_available()) GTEST_SKIP() << "this build has no libpfm4 (Debian's libpfm4-dev)";
  EventCatalog catalog(CatalogPaths{root_.string(), "/nonexistent", "skl"});
  for (const auto& [alias, definition] : kSkylakeEvents) {
    Event sysfs = catalog.resolve("cpu/" + alias + "/");
    perf_event_attr libpfm = libpfm_encode(definition.second, "skl").attr;
    EXPECT_EQ(sysfs.attr.config, libpfm.config) << alias << " vs " << definition.second;
    EXPECT_EQ(sysfs.attr.config1, libpfm.config1) << alias << " vs " << definition.second;
  }
}

}  // namespace
}  // namespace perfmon::events
