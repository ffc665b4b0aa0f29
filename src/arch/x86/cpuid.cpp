// SPDX-License-Identifier: Apache-2.0
#include "arch/x86/cpuid.hpp"

#include <cstring>
#include <utility>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

namespace perfmon::arch {

namespace {
unsigned field(std::uint32_t value, unsigned low, unsigned bits) {
  return (value >> low) & ((1U << bits) - 1);
}

std::string twelve_characters(std::uint32_t first, std::uint32_t second, std::uint32_t third) {
  char text[13];
  std::memcpy(text, &first, 4);
  std::memcpy(text + 4, &second, 4);
  std::memcpy(text + 8, &third, 4);
  text[12] = 0;
  return text;
}
}  // namespace

std::optional<CpuidRegisters> host_cpuid(std::uint32_t leaf, std::uint32_t subleaf) {
#if defined(__x86_64__) || defined(__i386__)
  CpuidRegisters r;
  // __get_cpuid_count checks the leaf against the highest one of its range (basic, extended).
  if (!__get_cpuid_count(leaf, subleaf, &r.eax, &r.ebx, &r.ecx, &r.edx)) {
    // The hypervisor range (40000000H) is not covered by that check; callers ask for it only
    // when leaf 1's hypervisor bit is set.
    if ((leaf & 0xf0000000U) != 0x40000000U) return std::nullopt;
    __cpuid_count(leaf, subleaf, r.eax, r.ebx, r.ecx, r.edx);
  }
  return r;
#else
  (void)leaf;
  (void)subleaf;
  return std::nullopt;
#endif
}

X86Signature decode_cpuid_signature(const CpuidRegisters& leaf0, const CpuidRegisters& leaf1) {
  X86Signature signature;
  signature.vendor = twelve_characters(leaf0.ebx, leaf0.edx, leaf0.ecx);
  // SDM: the extended family adds to family 0FH; the extended model extends families 06H and 0FH.
  unsigned base_family = field(leaf1.eax, 8, 4), base_model = field(leaf1.eax, 4, 4);
  signature.family = base_family == 0xf ? base_family + field(leaf1.eax, 20, 8) : base_family;
  signature.model = base_family == 6 || base_family == 0xf ? base_model | field(leaf1.eax, 16, 4) << 4 : base_model;
  signature.stepping = field(leaf1.eax, 0, 4);
  signature.hypervisor = field(leaf1.ecx, 31, 1) != 0;
  return signature;
}

std::optional<X86Signature> host_x86_signature() {
  std::optional<CpuidRegisters> leaf0 = host_cpuid(0), leaf1 = host_cpuid(1);
  if (!leaf0 || !leaf1) return std::nullopt;
  return decode_cpuid_signature(*leaf0, *leaf1);
}

std::string decode_hypervisor_vendor(const CpuidRegisters& leaf) {
  std::string vendor = twelve_characters(leaf.ebx, leaf.ecx, leaf.edx);
  vendor.erase(vendor.find_last_not_of(' ') + 1);
  return vendor;
}

bool ArchitecturalPerfmon::event_available(unsigned ebx_bit) const {
  return ebx_bit < event_vector_length && !((unavailable >> ebx_bit) & 1U);
}

bool ArchitecturalPerfmon::fixed_counter_available(unsigned index) const {
  // SDM: fixed counter i is supported if ECX[i] is set or i < EDX[4:0].
  return index < fixed_counters || (index < 32 && ((fixed_mask >> index) & 1U));
}

ArchitecturalPerfmon decode_cpuid_0a(const CpuidRegisters& leaf) {
  ArchitecturalPerfmon pm;
  pm.version = field(leaf.eax, 0, 8);
  pm.general_counters = field(leaf.eax, 8, 8);
  pm.general_width = field(leaf.eax, 16, 8);
  pm.event_vector_length = field(leaf.eax, 24, 8);
  pm.unavailable = leaf.ebx;
  if (pm.version >= 5) pm.fixed_mask = leaf.ecx;
  if (pm.version >= 2) {
    pm.fixed_counters = field(leaf.edx, 0, 5);
    pm.fixed_width = field(leaf.edx, 5, 8);
    pm.any_thread_deprecated = field(leaf.edx, 15, 1) != 0;
  }
  return pm;
}

AmdPerfmonV2 decode_cpuid_80000022(const CpuidRegisters& leaf) {
  AmdPerfmonV2 pm;
  pm.perfmon_v2 = field(leaf.eax, 0, 1) != 0;
  pm.lbr_stack = field(leaf.eax, 1, 1) != 0;
  pm.core_counters = field(leaf.ebx, 0, 4);
  pm.lbr_stack_size = field(leaf.ebx, 4, 6);
  pm.northbridge_counters = field(leaf.ebx, 10, 6);
  pm.umc_counters = field(leaf.ebx, 16, 6);
  return pm;
}

unsigned amd_core_counters(const CpuidRegisters& leaf80000001, const CpuidRegisters* leaf80000022) {
  if (leaf80000022 != nullptr) {
    AmdPerfmonV2 v2 = decode_cpuid_80000022(*leaf80000022);
    if (v2.perfmon_v2 && v2.core_counters != 0) return v2.core_counters;
  }
  return field(leaf80000001.ecx, 23, 1) != 0 ? 6 : 4;
}

CpuidCache decode_cpuid_cache_parameters(const CpuidRegisters& leaf) {
  CpuidCache cache;
  const unsigned type = field(leaf.eax, 0, 5);  // 1 data, 2 instruction, 3 unified; 0 no more caches
  if (type < 1 || type > 3) return cache;
  cache.level = field(leaf.eax, 5, 3);
  cache.kind = type == 1   ? CpuidCache::Kind::Data
               : type == 2 ? CpuidCache::Kind::Instruction
                           : CpuidCache::Kind::Unified;
  const bool fully_associative = field(leaf.eax, 9, 1) != 0;
  cache.line_size = field(leaf.ebx, 0, 12) + 1;
  const unsigned partitions = field(leaf.ebx, 12, 10) + 1;
  const unsigned ways = field(leaf.ebx, 22, 10) + 1;
  const std::uint64_t sets = std::uint64_t{leaf.ecx} + 1;
  cache.ways = fully_associative ? 0 : ways;
  cache.size = std::uint64_t{ways} * partitions * cache.line_size * sets;
  return cache;
}

namespace {
// 80000006H's associativity code; 0 for "none" or "see leaf 8000001DH" (9).
unsigned amd_ways(unsigned code, bool& fully_associative) {
  static constexpr unsigned kWays[16] = {0, 1, 2, 3, 4, 6, 8, 0, 16, 0, 32, 48, 64, 96, 128, 0};
  fully_associative = code == 0xf;
  return kWays[code & 0xf];
}

CpuidCache amd_cache(unsigned level, CpuidCache::Kind kind, std::uint64_t size, unsigned ways, bool fully,
                     unsigned line_size) {
  CpuidCache cache;
  if (size == 0 || line_size == 0 || (ways == 0 && !fully)) return cache;
  cache.level = level;
  cache.kind = kind;
  cache.size = size;
  cache.ways = fully ? 0 : ways;
  cache.line_size = line_size;
  return cache;
}
}  // namespace

std::vector<CpuidCache> decode_cpuid_amd_caches(const CpuidRegisters& leaf5, const CpuidRegisters& leaf6) {
  std::vector<CpuidCache> caches;
  auto keep = [&](const CpuidCache& cache) {
    if (cache.level != 0) caches.push_back(cache);
  };
  // L1: size in KB [31:24], ways [23:16] (FFH: fully associative), line [7:0].
  for (const auto& [value, kind] :
       {std::pair{leaf5.ecx, CpuidCache::Kind::Data}, std::pair{leaf5.edx, CpuidCache::Kind::Instruction}}) {
    const unsigned ways = field(value, 16, 8);
    keep(amd_cache(1, kind, std::uint64_t{field(value, 24, 8)} * 1024, ways, ways == 0xff, field(value, 0, 8)));
  }
  bool fully = false;
  unsigned ways = amd_ways(field(leaf6.ecx, 12, 4), fully);  // L2: size in KB [31:16]
  keep(amd_cache(2, CpuidCache::Kind::Unified, std::uint64_t{field(leaf6.ecx, 16, 16)} * 1024, ways, fully,
                 field(leaf6.ecx, 0, 8)));
  ways = amd_ways(field(leaf6.edx, 12, 4), fully);  // L3: size in 512 KB units [31:18]
  keep(amd_cache(3, CpuidCache::Kind::Unified, std::uint64_t{field(leaf6.edx, 18, 14)} * 512 * 1024, ways, fully,
                 field(leaf6.edx, 0, 8)));
  return caches;
}

}  // namespace perfmon::arch
