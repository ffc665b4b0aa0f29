// SPDX-License-Identifier: Apache-2.0
// CPUID decoding on register values recorded from real CPUs. Sources: InstLatx64's dumps
// (users.atw.hu/instlatx64) and libcpuid's test corpus (github.com/anrieff/libcpuid, tests/),
// each value as the dump prints it, in EAX-EBX-ECX-EDX order.
#include <gtest/gtest.h>

#include "arch/x86/cpuid.hpp"

namespace perfmon::arch {
namespace {

struct Dump {
  const char* cpu;
  CpuidRegisters leaf0, leaf1, leaf0a;
};

// Leaf 0 as the dumps print it (EAX-EBX-ECX-EDX); the vendor string reads EBX, EDX, ECX.
constexpr CpuidRegisters kIntelVendor = {0x0A, 0x756E6547, 0x6C65746E, 0x49656E69};
constexpr CpuidRegisters kAmdVendor = {0x10, 0x68747541, 0x444D4163, 0x69746E65};

struct Expected {
  unsigned family, model;
  unsigned version, general, general_width, vector_length, fixed, fixed_width;
  std::uint32_t fixed_mask;
  bool any_thread_deprecated;
};

void check(const Dump& dump, const Expected& want) {
  SCOPED_TRACE(dump.cpu);
  X86Signature signature = decode_cpuid_signature(dump.leaf0, dump.leaf1);
  EXPECT_EQ(signature.vendor, "GenuineIntel");
  EXPECT_EQ(signature.family, want.family);
  EXPECT_EQ(signature.model, want.model);
  ArchitecturalPerfmon pm = decode_cpuid_0a(dump.leaf0a);
  EXPECT_EQ(pm.version, want.version);
  EXPECT_EQ(pm.general_counters, want.general);
  EXPECT_EQ(pm.general_width, want.general_width);
  EXPECT_EQ(pm.event_vector_length, want.vector_length);
  EXPECT_EQ(pm.fixed_counters, want.fixed);
  EXPECT_EQ(pm.fixed_width, want.fixed_width);
  EXPECT_EQ(pm.fixed_mask, want.fixed_mask);
  EXPECT_EQ(pm.any_thread_deprecated, want.any_thread_deprecated);
  // Every recorded CPU has all the architectural events its vector covers (EBX = 0).
  for (unsigned bit = 0; bit < pm.event_vector_length; ++bit) EXPECT_TRUE(pm.event_available(bit)) << bit;
  EXPECT_FALSE(pm.event_available(pm.event_vector_length));
}

TEST(CpuidDumps, Core2ConroeReportsNoFixedCountersInVersion2) {
  // libcpuid tests/intel/core2/conroe.test: Core 2 Duo E6420. Version 2 yet EDX = 0: early Core 2
  // parts do not enumerate their 3 fixed counters (Linux assumes 3 for version 2 to 4).
  check({"Core 2 Duo E6420 (Conroe)",
         kIntelVendor,
         {0x000006F6, 0x00020800, 0x0000E3BD, 0xBFEBFBFF},
         {0x07280202, 0x00000000, 0x00000000, 0x00000000}},
        {6, 0x0F, 2, 2, 40, 7, 0, 0, 0, false});
}

TEST(CpuidDumps, Core2Harpertown) {
  // InstLatx64 dump of a Xeon E5462 (Penryn/Harpertown): 2 counters and 3 fixed, all 40 bits.
  check({"Xeon E5462 (Harpertown)",
         kIntelVendor,
         {0x00010676, 0x00040800, 0x000CE3BD, 0xBFEBFBFF},
         {0x07280202, 0x00000000, 0x00000000, 0x00000503}},
        {6, 0x17, 2, 2, 40, 7, 3, 40, 0, false});
}

TEST(CpuidDumps, NehalemEp) {
  // InstLatx64 GenuineIntel00106A2_Nehalem-EP.
  check({"Nehalem-EP",
         kIntelVendor,
         {0x000106A2, 0x00100800, 0x00BCE3BD, 0xBFEBFBFF},
         {0x07300403, 0x00000000, 0x00000000, 0x00000603}},
        {6, 0x1A, 3, 4, 48, 7, 3, 48, 0, false});
}

TEST(CpuidDumps, Skylake) {
  // libcpuid tests/intel/core_6th_gen/skylake-i5.test: Core i5-6600K, no Hyper-Threading, so all 8
  // general-purpose counters belong to the one thread.
  check({"Core i5-6600K (Skylake)",
         kIntelVendor,
         {0x000506E3, 0x00100800, 0x7FFAFBBF, 0xBFEBFBFF},
         {0x07300804, 0x00000000, 0x00000000, 0x00000603}},
        {6, 0x5E, 4, 8, 48, 7, 3, 48, 0, false});
}

TEST(CpuidDumps, IceLake) {
  // libcpuid tests/intel/core_10th_gen/ice-lake-i7.test: Core i7-1065G7. Version 5: the fixed
  // counter mask in ECX (4 counters, the fourth is TOPDOWN.SLOTS), AnyThread deprecated.
  check({"Core i7-1065G7 (Ice Lake)",
         kIntelVendor,
         {0x000706E5, 0x00100800, 0x7FFAFBBF, 0xBFEBFBFF},
         {0x08300805, 0x00000000, 0x0000000F, 0x00008604}},
        {6, 0x7E, 5, 8, 48, 8, 4, 48, 0xF, true});
  ArchitecturalPerfmon pm = decode_cpuid_0a({0x08300805, 0x00000000, 0x0000000F, 0x00008604});
  EXPECT_TRUE(pm.fixed_counter_available(3));
  EXPECT_FALSE(pm.fixed_counter_available(4));
}

TEST(CpuidDumps, AlderLakePerformanceAndEfficiencyCores) {
  // libcpuid tests/intel/core_12th_gen/alder-lake-p-i7.test: Core i7-12700H, logical CPU 0 (leaf
  // 1AH: Core) and 18 (leaf 1AH: Atom). Both report the same leaf 0AH: the counters common to the
  // two core types (6), fixed counters 0-2 in the ECX mask.
  Dump performance{"i7-12700H P-core",
                   kIntelVendor,
                   {0x000906A2, 0x00800800, 0x7FFAFBFF, 0xBFEBFBFF},
                   {0x07300605, 0x00000000, 0x00000007, 0x00008603}};
  Dump efficiency{"i7-12700H E-core",
                  kIntelVendor,
                  {0x000906A2, 0x3C800800, 0x7FFAFBFF, 0xBFEBFBFF},
                  {0x07300605, 0x00000000, 0x00000007, 0x00008603}};
  Expected want{6, 0x9A, 5, 6, 48, 7, 3, 48, 0x7, true};
  check(performance, want);
  check(efficiency, want);
  ArchitecturalPerfmon pm = decode_cpuid_0a(performance.leaf0a);
  EXPECT_FALSE(pm.fixed_counter_available(3));  // no TOPDOWN.SLOTS counter in the common set
}

TEST(CpuidDumps, Zen2HasSixCoreCountersWithoutPerfMonV2) {
  // libcpuid tests/amd/zen2/amd-ryzen-9-3900x-12-core-processor.test: the highest extended leaf
  // is 80000020H, so no PerfMonV2; PerfCtrExtCore (80000001H:ECX[23]) gives 6 counters.
  X86Signature signature = decode_cpuid_signature(kAmdVendor, {0x00870F10, 0x00180800, 0x7ED8320B, 0x178BFBFF});
  EXPECT_EQ(signature.vendor, "AuthenticAMD");
  EXPECT_EQ(signature.family, 0x17u);
  EXPECT_EQ(signature.model, 0x71u);
  CpuidRegisters ext1{0x00870F10, 0x20000000, 0x75C237FF, 0x2FD3FBFF};
  EXPECT_EQ(amd_core_counters(ext1, nullptr), 6u);
}

TEST(CpuidDumps, Zen4PerfMonV2) {
  // libcpuid tests/amd/zen4/amd-ryzen-7-7700x-8-core-processor.test.
  X86Signature signature = decode_cpuid_signature(kAmdVendor, {0x00A60F12, 0x00100800, 0x7EF8320B, 0x178BFBFF});
  EXPECT_EQ(signature.family, 0x19u);
  EXPECT_EQ(signature.model, 0x61u);
  CpuidRegisters ext22{0x00000003, 0x00084106, 0x00000003, 0x00000000};
  AmdPerfmonV2 v2 = decode_cpuid_80000022(ext22);
  EXPECT_TRUE(v2.perfmon_v2);
  EXPECT_TRUE(v2.lbr_stack);
  EXPECT_EQ(v2.core_counters, 6u);
  EXPECT_EQ(v2.lbr_stack_size, 16u);
  EXPECT_EQ(v2.northbridge_counters, 16u);
  EXPECT_EQ(v2.umc_counters, 8u);
  CpuidRegisters ext1{0x00A60F12, 0x00000000, 0x75C237FF, 0x2FD3FBFF};
  EXPECT_EQ(amd_core_counters(ext1, &ext22), 6u);
}

TEST(CpuidDumps, AmdWithoutTheExtensionHasFourCounters) {
  EXPECT_EQ(amd_core_counters({0, 0, 0, 0}, nullptr), 4u);
}

}  // namespace
}  // namespace perfmon::arch
