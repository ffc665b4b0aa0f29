// SPDX-License-Identifier: Apache-2.0
#include "perfmon/perfevtsel.hpp"

#include <gtest/gtest.h>

#include <random>

#include "arch/x86/cpuid.hpp"
#include "perfmon/error.hpp"

namespace perfmon::arch {
namespace {

TEST(PerfEvtSel, EncodesEveryFieldWhereTheTutorialPutsIt) {
  PerfEvtSel select;
  select.event = 0xc0;
  select.umask = 0x01;
  select.usr = select.os = select.edge = select.pin_control = select.interrupt = true;
  select.any_thread = select.enable = select.invert = true;
  select.cmask = 0x02;
  EXPECT_EQ(select.encode(), 0x02ff01c0u);
  PerfEvtSel only_usr;
  only_usr.usr = true;
  EXPECT_EQ(only_usr.encode(), 1u << 16);
}

TEST(PerfEvtSel, DecodesTheIssueExample) {
  PerfEvtSel select = PerfEvtSel::decode(0x4100c0);
  EXPECT_EQ(select.event, 0xc0);
  EXPECT_EQ(select.umask, 0x00);
  EXPECT_TRUE(select.usr);
  EXPECT_FALSE(select.os);
  EXPECT_TRUE(select.enable);
  EXPECT_EQ(select.describe(), "event=0xc0,umask=0x00,usr,en");
}

TEST(PerfEvtSel, DecodeEncodeIsTheIdentity) {
  std::mt19937 random(42);
  for (int i = 0; i < 10000; ++i) {
    std::uint32_t value = random();
    EXPECT_EQ(PerfEvtSel::decode(value).encode(), value);
  }
}

TEST(PerfEvtSel, ReservedBitsAreRefused) {
  EXPECT_THROW(PerfEvtSel::decode(std::uint64_t{1} << 32), Error);
}

TEST(PerfEvtSel, CmaskInvEdgeAndAnyThreadSurviveIntoTheAttr) {
  // cmask 1, INV, EN, AnyThread, edge and USR set, event 0x3c.
  PerfEvtSel select = PerfEvtSel::decode(0x01e5003c);
  select.usr = true;
  select.os = false;
  perf_event_attr attr = perfevtsel_to_attr(select);
  EXPECT_EQ(attr.type, static_cast<std::uint32_t>(PERF_TYPE_RAW));
  // Kept: event, umask, edge (18), any (21), inv (23), cmask; dropped: usr, os, int, en.
  EXPECT_EQ(attr.config, 0x01a4003cu);
  EXPECT_TRUE(attr.exclude_kernel);
  EXPECT_FALSE(attr.exclude_user);
  PerfEvtSel back = attr_to_perfevtsel(attr);
  EXPECT_EQ(back.cmask, 1);
  EXPECT_TRUE(back.invert && back.edge && back.any_thread);
  EXPECT_TRUE(back.usr);
  EXPECT_FALSE(back.os);
  EXPECT_TRUE(back.enable && back.interrupt);
}

TEST(PerfEvtSel, NeitherRingMeansBothForPerf) {
  PerfEvtSel select;
  select.event = 0x3c;
  perf_event_attr attr = perfevtsel_to_attr(select);
  EXPECT_FALSE(attr.exclude_kernel);
  EXPECT_FALSE(attr.exclude_user);
}

// Register values built from the SDM's field layout (recorded dumps of real CPUs are still to
// be added; see docs/events.md).
TEST(CpuidLeaf0A, DecodesVersionCountersWidthsAndFixedCounters) {
  ArchitecturalPerfmon pm = decode_cpuid_0a({0x07300404, 0x00000000, 0x00000000, 0x00000603});
  EXPECT_EQ(pm.version, 4u);
  EXPECT_EQ(pm.general_counters, 4u);
  EXPECT_EQ(pm.general_width, 48u);
  EXPECT_EQ(pm.event_vector_length, 7u);
  EXPECT_EQ(pm.fixed_counters, 3u);
  EXPECT_EQ(pm.fixed_width, 48u);
  for (unsigned bit = 0; bit < 7; ++bit) EXPECT_TRUE(pm.event_available(bit)) << bit;
  EXPECT_FALSE(pm.event_available(7));  // beyond the vector length
  EXPECT_TRUE(pm.fixed_counter_available(2));
  EXPECT_FALSE(pm.fixed_counter_available(3));
}

TEST(CpuidLeaf0A, UnavailableEventsAndTheFixedCounterMask) {
  // Version 5: 8 counters of 48 bits, a 10-bit vector saying events 2 and 9 are absent; fixed
  // counters 0, 1 and 3 by ECX although EDX reports two.
  ArchitecturalPerfmon pm = decode_cpuid_0a({0x0a300805, 0x00000204, 0x0000000b, 0x00008602});
  EXPECT_EQ(pm.version, 5u);
  EXPECT_EQ(pm.general_counters, 8u);
  EXPECT_FALSE(pm.event_available(2));
  EXPECT_FALSE(pm.event_available(9));
  EXPECT_TRUE(pm.event_available(1));
  EXPECT_TRUE(pm.fixed_counter_available(3));
  EXPECT_FALSE(pm.fixed_counter_available(2));
  EXPECT_TRUE(pm.any_thread_deprecated);
}

TEST(CpuidLeaf0A, VersionOneHasNoFixedCounters) {
  ArchitecturalPerfmon pm = decode_cpuid_0a({0x07280201, 0, 0, 0x00000503});
  EXPECT_EQ(pm.version, 1u);
  EXPECT_EQ(pm.general_width, 40u);
  EXPECT_EQ(pm.fixed_counters, 0u);
}

TEST(CpuidLeaf80000022, AmdPerfMonV2) {
  AmdPerfmonV2 pm = decode_cpuid_80000022({0x00000007, 0x00010106, 0, 0});
  EXPECT_TRUE(pm.perfmon_v2);
  EXPECT_TRUE(pm.lbr_stack);
  EXPECT_EQ(pm.core_counters, 6u);
  EXPECT_EQ(pm.lbr_stack_size, 16u);
  EXPECT_EQ(pm.northbridge_counters, 0u);
  EXPECT_EQ(pm.umc_counters, 1u);
}

}  // namespace
}  // namespace perfmon::arch
