// SPDX-License-Identifier: Apache-2.0
// x86 performance-monitoring enumeration: CPUID leaf 0/1 (vendor, family, model, hypervisor bit),
// Intel leaf 0AH and AMD leaves 80000001H/80000022H; the caches (leaf 4, 80000005H/6H, 8000001DH). Pure functions of
// register values, testable on any machine, and the host's own registers where the CPU is x86.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace perfmon::arch {

struct CpuidRegisters {
  std::uint32_t eax = 0, ebx = 0, ecx = 0, edx = 0;
};

// The running CPU's registers for a leaf (and subleaf); nullopt off x86 or above the highest leaf.
std::optional<CpuidRegisters> host_cpuid(std::uint32_t leaf, std::uint32_t subleaf = 0);

// Who made the CPU and which model it is: CPUID leaf 0 (vendor string in EBX, EDX, ECX) and leaf 1
// (EAX: stepping, model, family with their extended fields; ECX[31]: running under a hypervisor).
struct X86Signature {
  std::string vendor;  // GenuineIntel, AuthenticAMD, ...
  unsigned family = 0, model = 0, stepping = 0;
  bool hypervisor = false;
};
X86Signature decode_cpuid_signature(const CpuidRegisters& leaf0, const CpuidRegisters& leaf1);
// The running CPU's (nullopt off x86).
std::optional<X86Signature> host_x86_signature();
// The hypervisor's name from leaf 40000000H ("KVMKVMKVM", "Microsoft Hv"), trailing blanks removed.
std::string decode_hypervisor_vendor(const CpuidRegisters& leaf40000000);

// Intel CPUID.0AH.
struct ArchitecturalPerfmon {
  unsigned version = 0;                // EAX[7:0]
  unsigned general_counters = 0;       // EAX[15:8], per logical processor
  unsigned general_width = 0;          // EAX[23:16]
  unsigned event_vector_length = 0;    // EAX[31:24]: how many EBX bits are meaningful
  std::uint32_t unavailable = 0;       // EBX: bit set = architectural event NOT available
  std::uint32_t fixed_mask = 0;        // ECX (version 5+): bit set = fixed counter supported
  unsigned fixed_counters = 0;         // EDX[4:0] (version 2+)
  unsigned fixed_width = 0;            // EDX[12:5]
  bool any_thread_deprecated = false;  // EDX[15]

  bool event_available(unsigned ebx_bit) const;
  bool fixed_counter_available(unsigned index) const;
};
ArchitecturalPerfmon decode_cpuid_0a(const CpuidRegisters& leaf);

// AMD CPUID.80000022H (PerfMonV2).
struct AmdPerfmonV2 {
  bool perfmon_v2 = false;            // EAX[0]
  bool lbr_stack = false;             // EAX[1]
  unsigned core_counters = 0;         // EBX[3:0]
  unsigned lbr_stack_size = 0;        // EBX[9:4]
  unsigned northbridge_counters = 0;  // EBX[15:10]
  unsigned umc_counters = 0;          // EBX[21:16]
};
AmdPerfmonV2 decode_cpuid_80000022(const CpuidRegisters& leaf);

// AMD core counters per logical CPU: PerfMonV2's count when leaf 80000022H has it, else 6 when
// CPUID.80000001H:ECX[23] (PerfCtrExtCore) is set, else the 4 legacy counters.
unsigned amd_core_counters(const CpuidRegisters& leaf80000001, const CpuidRegisters* leaf80000022);

// One cache as CPUID describes it. level 0: no cache (the end of leaf 4's list, or a field that
// says "none" or "see elsewhere").
struct CpuidCache {
  enum class Kind { Data, Instruction, Unified };
  unsigned level = 0;
  Kind kind = Kind::Unified;
  std::uint64_t size = 0;  // bytes
  unsigned ways = 0;       // 0: fully associative
  unsigned line_size = 0;
};
// Intel leaf 4 (deterministic cache parameters), one subleaf per cache; AMD leaf 8000001DH has the
// same layout.
CpuidCache decode_cpuid_cache_parameters(const CpuidRegisters& leaf);
// AMD's older description: leaf 80000005H (L1 data in ECX, L1 instruction in EDX) and 80000006H
// (L2 in ECX, L3 in EDX, associativity coded).
std::vector<CpuidCache> decode_cpuid_amd_caches(const CpuidRegisters& leaf80000005, const CpuidRegisters& leaf80000006);

}  // namespace perfmon::arch
