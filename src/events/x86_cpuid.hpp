// x86 performance-monitoring enumeration: Intel CPUID leaf 0AH, AMD leaf 80000022H, and the Intel
// architectural events they describe. Pure functions of register values: testable anywhere.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace perfmon::events {

struct CpuidRegisters {
  std::uint32_t eax = 0, ebx = 0, ecx = 0, edx = 0;
};

// Who made the CPU and which model it is: CPUID leaf 0 (vendor string in EBX, EDX, ECX) and leaf 1
// (EAX: stepping, model, family with their extended fields; ECX[31]: running under a hypervisor).
struct X86Signature {
  std::string vendor;  // GenuineIntel, AuthenticAMD, ...
  unsigned family = 0, model = 0, stepping = 0;
  bool hypervisor = false;
};
X86Signature decode_cpuid_signature(const CpuidRegisters& leaf0, const CpuidRegisters& leaf1);
// The running CPU's (empty off x86).
std::optional<X86Signature> host_x86_signature();

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

struct ArchitecturalEvent {
  bool fixed = false;
  std::string name;                // INST_RETIRED.ANY_P
  std::string architectural_name;  // "Instructions Retired"
  std::uint8_t event = 0, umask = 0;
  std::optional<unsigned> ebx_bit;         // general-purpose events: their CPUID.0AH EBX bit
  std::optional<unsigned> fixed_counter;   // fixed events: the counter index
  std::optional<std::uint32_t> fixed_msr;  // and its MSR (IA32_FIXED_CTRn)
};

// data/intel-architectural-events.csv, parsed once.
const std::vector<ArchitecturalEvent>& intel_architectural_events();
// The entry named `name` (case-insensitive), or nullptr.
const ArchitecturalEvent* find_architectural_event(const std::string& name);

}  // namespace perfmon::events
