// SPDX-License-Identifier: Apache-2.0
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <tuple>

#include "events/sources/sysfs_pmu.hpp"
#include "perfmon/catalog.hpp"
#include "perfmon/error.hpp"
#include "sysfs_tree.hpp"

namespace perfmon::events {
namespace {

namespace fs = std::filesystem;

TEST(SysfsFormat, ParsesRangesAndWords) {
  FormatField event = parse_format_field("event", "config:0-7,32-35\n");
  ASSERT_EQ(event.ranges.size(), 2u);
  EXPECT_EQ(event.ranges[1].low, 32);
  EXPECT_EQ(event.ranges[1].high, 35);
  EXPECT_EQ(event.width(), 12);
  FormatField flag = parse_format_field("rdpmc", "config1:1");
  EXPECT_EQ(flag.ranges[0].word, 1);
  EXPECT_EQ(flag.width(), 1);
  EXPECT_EQ(parse_format_field("ldlat", "config2:0-15").ranges[0].word, 2);
}

TEST(SysfsFormat, RejectsMalformedFormats) {
  EXPECT_THROW(parse_format_field("x", "config"), Error);
  EXPECT_THROW(parse_format_field("x", "config4:0-7"), Error);
  EXPECT_THROW(parse_format_field("x", "config:7-0"), Error);
  EXPECT_THROW(parse_format_field("x", "config:0-64"), Error);
  EXPECT_THROW(parse_format_field("x", "config:a-b"), Error);
}

TEST(SysfsFormat, PacksSplitRangesLowBitsFirst) {
  perf_event_attr attr{};
  pack_format_value(parse_format_field("event", "config:0-7,32-35"), 0xabc, attr);
  EXPECT_EQ(attr.config, 0xbcull | (0xaull << 32));
}

TEST(SysfsFormat, PacksIntoConfig1AndConfig2WithoutDisturbingOtherBits) {
  perf_event_attr attr{};
  attr.config1 = 0x8000;
  pack_format_value(parse_format_field("offcore", "config1:0-3"), 0x5, attr);
  pack_format_value(parse_format_field("ldlat", "config2:4-19"), 0x30, attr);
  EXPECT_EQ(attr.config1, 0x8005u);
  EXPECT_EQ(attr.config2, 0x300u);
  pack_format_value(parse_format_field("whole", "config:0-63"), ~0ull, attr);
  EXPECT_EQ(attr.config, ~0ull);
}

TEST(SysfsFormat, RefusesValuesWiderThanTheField) {
  perf_event_attr attr{};
  try {
    pack_format_value(parse_format_field("umask", "config:8-15"), 0x100, attr);
    FAIL();
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find("does not fit term 'umask' (8 bits"), std::string::npos) << error.what();
  }
}

// A fake sysfs PMU tree, as the kernel lays it out, for the catalogue to resolve against.
class FakeSysfs : public testing::SysfsTree {
 protected:
  void SetUp() override {
    write("cpu/type", "4");
    write("cpu/format/event", "config:0-7,32-35");
    write("cpu/format/umask", "config:8-15");
    write("cpu/format/edge", "config:18");
    write("cpu/format/inv", "config:23");
    write("cpu/format/cmask", "config:24-31");
    write("cpu/format/ldlat", "config1:0-15");
    write("cpu/events/cycles-t", "event=0x3c,in_tx=1");
    write("cpu/events/mem-loads", "event=0xcd,umask=0x1,ldlat=3");
    write("cpu/caps/max_precise", "3");
    write("cpu/caps/pmu_name", "skylake");
    write("power/type", "23");
    write("power/cpumask", "0");
    write("power/format/event", "config:0-7");
    write("power/events/energy-pkg", "event=0x02");
    write("power/events/energy-pkg.scale", "2.3283064365386962890625e-10");
    write("power/events/energy-pkg.unit", "Joules");
  }
  EventCatalog catalog() { return EventCatalog(CatalogPaths{root_.string(), "/nonexistent", ""}); }
};

TEST_F(FakeSysfs, ResolvesFormatTerms) {
  Event event = catalog().resolve("cpu/event=0x1c2,umask=0x3,edge,inv,cmask=2,ldlat=0x40/u");
  EXPECT_EQ(event.attr.type, 4u);
  EXPECT_EQ(event.attr.config, 0xc2ull | (0x1ull << 32) | (0x3 << 8) | (1 << 18) | (1 << 23) | (2ull << 24));
  EXPECT_EQ(event.attr.config1, 0x40u);
  EXPECT_TRUE(event.attr.exclude_kernel);
  EXPECT_FALSE(event.attr.exclude_user);
}

TEST_F(FakeSysfs, ResolvesNamedEventsWithScaleAndUnit) {
  EventCatalog cat = catalog();
  Event energy = cat.resolve("power/energy-pkg/");
  EXPECT_EQ(energy.attr.type, 23u);
  EXPECT_EQ(energy.attr.config, 2u);
  EXPECT_DOUBLE_EQ(energy.scale, 2.3283064365386962890625e-10);
  EXPECT_EQ(energy.unit, "Joules");
  EXPECT_EQ(energy.cpus, std::vector<int>{0});
  Event loads = cat.resolve("cpu/mem-loads/");
  EXPECT_EQ(loads.attr.config, 0x1cdu);
  EXPECT_EQ(loads.attr.config1, 3u);
  // A named event without its PMU, and a term overriding the alias.
  EXPECT_EQ(cat.resolve("energy-pkg").attr.type, 23u);
  EXPECT_EQ(cat.resolve("cpu/mem-loads,ldlat=7/").attr.config1, 7u);
  EXPECT_EQ(cat.resolve("cpu/config=0x1234,config1=5,name=mine/").name, "mine");
}

TEST_F(FakeSysfs, ExplainsUnknownTermsAndPmus) {
  EventCatalog cat = catalog();
  try {
    cat.resolve("cpu/evnt=1/");
    FAIL();
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find("did you mean 'event'"), std::string::npos) << error.what();
  }
  try {
    cat.resolve("cpux/event=1/");
    FAIL();
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find("no PMU named 'cpux'; did you mean 'cpu'"), std::string::npos)
        << error.what();
  }
  EXPECT_THROW(cat.resolve("cpu/umask=0x100/"), Error);
  EXPECT_THROW(cat.resolve("cpu/event=zz/"), Error);
  EXPECT_THROW(cat.resolve("cpu//"), Error);
}

TEST_F(FakeSysfs, ListsPmusWithFormats) {
  auto pmus = catalog().pmus();
  ASSERT_EQ(pmus.size(), 2u);
  EXPECT_EQ(pmus[0].name, "cpu");
  EXPECT_NE(std::find(pmus[0].formats.begin(), pmus[0].formats.end(), "event=config:0-7,32-35"), pmus[0].formats.end());
  EXPECT_EQ(pmus[1].cpus, "0");
  EXPECT_EQ(pmus[0].caps, (std::vector<std::string>{"max_precise=3", "pmu_name=skylake"}));
}

// A hybrid machine (Alder Lake): two core PMUs, each for its CPUs, and no "cpu" PMU.
class HybridSysfs : public testing::SysfsTree {
 protected:
  void SetUp() override {
    for (auto [name, type, cpus] : {std::tuple{"cpu_core", "8", "0-7"}, std::tuple{"cpu_atom", "10", "8-15"}}) {
      write(std::string(name) + "/type", type);
      write(std::string(name) + "/cpus", cpus);
      write(std::string(name) + "/format/event", "config:0-7");
      write(std::string(name) + "/format/umask", "config:8-15");
    }
    write("cpu_core/events/topdown-retiring", "event=0x00,umask=0x80");
  }
  EventCatalog catalog() { return EventCatalog(CatalogPaths{root_.string(), "/nonexistent", ""}); }
};

TEST_F(HybridSysfs, CoreEventsOpenOncePerCorePmuAndGroupsSplit) {
  auto groups = catalog().parse("{cycles,instructions,page-faults},r01c2,task-clock");
  ASSERT_EQ(groups.size(), 5u);  // the group and r01c2 once per core PMU, task-clock alone
  const Event& core_cycles = groups[0].events[0];
  EXPECT_EQ(core_cycles.name, "cpu_core/cycles/");
  EXPECT_EQ(core_cycles.total_name, "cycles");
  EXPECT_EQ(core_cycles.attr.type, static_cast<std::uint32_t>(PERF_TYPE_HARDWARE));
  EXPECT_EQ(core_cycles.attr.config, (8ull << 32) | PERF_COUNT_HW_CPU_CYCLES);
  EXPECT_EQ(core_cycles.cpus, (std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7}));
  ASSERT_EQ(groups[0].events.size(), 3u);  // the software event stays in the first copy only
  EXPECT_EQ(groups[0].events[2].name, "page-faults");
  ASSERT_EQ(groups[1].events.size(), 2u);
  EXPECT_EQ(groups[1].events[1].name, "cpu_atom/instructions/");
  EXPECT_EQ(groups[1].events[1].attr.config, (10ull << 32) | PERF_COUNT_HW_INSTRUCTIONS);
  EXPECT_EQ(groups[1].events[1].cpus.front(), 8);
  EXPECT_EQ(groups[3].events[0].name, "cpu_atom/r01c2/");
  EXPECT_EQ(groups[3].events[0].attr.type, 10u);  // a raw event takes the PMU's type
  EXPECT_EQ(groups[3].events[0].attr.config, 0x1c2u);
  EXPECT_EQ(groups[4].events[0].name, "task-clock");
  EXPECT_TRUE(groups[4].events[0].total_name.empty());
  // An event one core PMU names is that PMU's alone.
  Event retiring = catalog().resolve("cpu_core/topdown-retiring/");
  EXPECT_EQ(retiring.attr.type, 8u);
  EXPECT_EQ(retiring.attr.config, 0x8000u);
}

}  // namespace
}  // namespace perfmon::events
