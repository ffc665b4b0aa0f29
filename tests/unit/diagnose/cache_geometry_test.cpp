// SPDX-License-Identifier: Apache-2.0
// The caches the emulated CPU models: read from CPUID's registers and from sysfs, and given as
// cachegrind takes them.
#include "perfmon/cache_geometry.hpp"

#include <gtest/gtest.h>

#include "../events/sysfs_tree.hpp"
#include "arch/x86/cpuid.hpp"
#include "perfmon/error.hpp"

namespace perfmon {
namespace {

using Kind = arch::CpuidCache::Kind;

TEST(CpuidCaches, Leaf4ListsEachCache) {
  // Leaf 4 subleaves (EAX-EBX-ECX-EDX) encoding Skylake client's caches: 32 KiB 8-way L1D and L1I,
  // a 256 KiB 4-way L2 and a 6 MiB 12-way L3 (ways, partitions, line size and sets minus one).
  struct Case {
    arch::CpuidRegisters leaf;
    unsigned level;
    Kind kind;
    std::uint64_t size;
    unsigned ways;
  } cases[] = {{{0x1C004121, 0x01C0003F, 0x0000003F, 0}, 1, Kind::Data, 32 << 10, 8},
               {{0x1C004122, 0x01C0003F, 0x0000003F, 0}, 1, Kind::Instruction, 32 << 10, 8},
               {{0x1C004143, 0x00C0003F, 0x000003FF, 0}, 2, Kind::Unified, 256 << 10, 4},
               {{0x1C03C163, 0x02C0003F, 0x00001FFF, 6}, 3, Kind::Unified, 6 << 20, 12}};
  for (const Case& c : cases) {
    const arch::CpuidCache cache = arch::decode_cpuid_cache_parameters(c.leaf);
    EXPECT_EQ(cache.level, c.level);
    EXPECT_EQ(cache.kind, c.kind);
    EXPECT_EQ(cache.size, c.size);
    EXPECT_EQ(cache.ways, c.ways);
    EXPECT_EQ(cache.line_size, 64u);
  }
  EXPECT_EQ(arch::decode_cpuid_cache_parameters({0, 0, 0, 0}).level, 0u);  // the end of the list
}

TEST(CpuidCaches, AmdLegacyLeavesDecodeTheirAssociativityCodes) {
  // An AMD EPYC under KVM (this project's CI machines): 48 KiB 12-way L1D, 32 KiB 8-way L1I, 1 MiB
  // L2 with code 6 (8-way), and an L3 with code 9 ("see leaf 8000001DH"), which is not used.
  const std::vector<arch::CpuidCache> caches = arch::decode_cpuid_amd_caches(
      {0xFF60FF40, 0xFF60FF40, 0x300C0140, 0x20080140}, {0x40802040, 0x60804040, 0x04006140, 0x0FE09140});
  ASSERT_EQ(caches.size(), 3u);
  EXPECT_EQ(caches[0].kind, Kind::Data);
  EXPECT_EQ(caches[0].size, 48u << 10);
  EXPECT_EQ(caches[0].ways, 12u);
  EXPECT_EQ(caches[1].kind, Kind::Instruction);
  EXPECT_EQ(caches[1].size, 32u << 10);
  EXPECT_EQ(caches[1].ways, 8u);
  EXPECT_EQ(caches[2].level, 2u);
  EXPECT_EQ(caches[2].size, 1u << 20);
  EXPECT_EQ(caches[2].ways, 8u);
  EXPECT_EQ(caches[2].line_size, 64u);
}

class SysfsCaches : public testing::SysfsTree {
 protected:
  void cache(int index, const char* level, const char* type, const char* size, const char* ways) {
    const std::string entry = "index" + std::to_string(index) + "/";
    write(entry + "level", level);
    write(entry + "type", type);
    write(entry + "size", size);
    write(entry + "ways_of_associativity", ways);
    write(entry + "coherency_line_size", "64");
  }
};

TEST_F(SysfsCaches, TheLastLevelIsTheHighestUnifiedCache) {
  cache(0, "1", "Data", "48K", "12");
  cache(1, "1", "Instruction", "32K", "8");
  cache(2, "2", "Unified", "2048K", "16");
  cache(3, "3", "Unified", "36864K", "12");
  const std::optional<CacheHierarchy> caches = cache_hierarchy_from_sysfs(root_.string());
  ASSERT_TRUE(caches);
  EXPECT_EQ(caches->l1d, (CacheGeometry{48 << 10, 12, 64}));
  EXPECT_EQ(caches->l1i, (CacheGeometry{32 << 10, 8, 64}));
  EXPECT_EQ(caches->ll, (CacheGeometry{36 << 20, 12, 64}));  // 49,152 sets: not a power of two, modelled
  EXPECT_EQ(caches->source, "sysfs");
  EXPECT_EQ(caches->ll.describe(), "36 MiB, 12-way, 64-byte lines");
}

TEST_F(SysfsCaches, LevelsItDoesNotDescribeTakeTheDefaults) {
  cache(0, "1", "Data", "32K", "8");
  const std::optional<CacheHierarchy> caches = cache_hierarchy_from_sysfs(root_.string());
  ASSERT_TRUE(caches);
  EXPECT_EQ(caches->l1d, (CacheGeometry{32 << 10, 8, 64}));
  EXPECT_EQ(caches->ll, (CacheGeometry{8 << 20, 16, 64}));
  EXPECT_EQ(caches->source, "sysfs and defaults");
  EXPECT_FALSE(cache_hierarchy_from_sysfs((root_ / "none").string()));
}

TEST(CacheGeometry, ParsedAsCachegrindTakesIt) {
  EXPECT_EQ(parse_cache_geometry("32768,8,64", "--D1"), (CacheGeometry{32768, 8, 64}));
  EXPECT_EQ(parse_cache_geometry("8M,16,64", "--LL"), (CacheGeometry{8 << 20, 16, 64}));
  const CacheGeometry fully = parse_cache_geometry("4096,64,64", "--I1");
  EXPECT_EQ(fully.sets(), 1u);
  EXPECT_EQ(fully.describe(), "4 KiB, fully associative, 64-byte lines");
  for (const char* bad : {"", "32768", "32768,8", "32768,8,64,1", "a,8,64", "32768,0,64", "-1,8,64"})
    EXPECT_THROW(parse_cache_geometry(bad, "--D1"), Error) << bad;
  try {
    parse_cache_geometry("32768,8,48", "--D1");
    FAIL();
  } catch (const Error& error) {
    EXPECT_EQ(error.kind(), ErrorKind::InvalidArgument);
    EXPECT_STREQ(error.what(), "the cache --D1=32768,8,48 cannot be modelled: its line size must be a power of two.");
  }
}

}  // namespace
}  // namespace perfmon
