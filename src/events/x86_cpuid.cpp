#include "events/x86_cpuid.hpp"

#include <strings.h>

#include <cstdlib>
#include <cstring>
#include <sstream>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

#include "events/embedded_data.hpp"
#include "perfmon/error.hpp"

namespace perfmon::events {

namespace {
unsigned field(std::uint32_t value, unsigned low, unsigned bits) {
  return (value >> low) & ((1U << bits) - 1);
}

std::vector<std::string> split_csv_line(const std::string& line) {
  std::vector<std::string> fields;
  std::stringstream in(line);
  for (std::string item; std::getline(in, item, ',');) fields.push_back(item);
  if (!line.empty() && line.back() == ',') fields.emplace_back();
  return fields;
}

std::vector<ArchitecturalEvent> parse_table(const char* csv) {
  std::vector<ArchitecturalEvent> table;
  std::stringstream in(csv);
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#') continue;
    auto fields = split_csv_line(line);
    if (fields.size() != 8) throw Error("malformed architectural event row: '" + line + "'.");
    ArchitecturalEvent event;
    event.fixed = fields[0] == "fixed";
    event.name = fields[1];
    event.architectural_name = fields[2];
    event.event = static_cast<std::uint8_t>(std::strtoul(fields[3].c_str(), nullptr, 16));
    event.umask = static_cast<std::uint8_t>(std::strtoul(fields[4].c_str(), nullptr, 16));
    if (!fields[5].empty()) event.ebx_bit = static_cast<unsigned>(std::strtoul(fields[5].c_str(), nullptr, 10));
    if (!fields[6].empty()) event.fixed_counter = static_cast<unsigned>(std::strtoul(fields[6].c_str(), nullptr, 10));
    if (!fields[7].empty()) event.fixed_msr = static_cast<std::uint32_t>(std::strtoul(fields[7].c_str(), nullptr, 16));
    table.push_back(std::move(event));
  }
  return table;
}
}  // namespace

X86Signature decode_cpuid_signature(const CpuidRegisters& leaf0, const CpuidRegisters& leaf1) {
  X86Signature signature;
  char vendor[13];
  std::memcpy(vendor, &leaf0.ebx, 4);
  std::memcpy(vendor + 4, &leaf0.edx, 4);
  std::memcpy(vendor + 8, &leaf0.ecx, 4);
  vendor[12] = 0;
  signature.vendor = vendor;
  // SDM: the extended family adds to family 0FH; the extended model extends families 06H and 0FH.
  unsigned base_family = field(leaf1.eax, 8, 4), base_model = field(leaf1.eax, 4, 4);
  signature.family = base_family == 0xf ? base_family + field(leaf1.eax, 20, 8) : base_family;
  signature.model = base_family == 6 || base_family == 0xf ? base_model | field(leaf1.eax, 16, 4) << 4 : base_model;
  signature.stepping = field(leaf1.eax, 0, 4);
  signature.hypervisor = field(leaf1.ecx, 31, 1) != 0;
  return signature;
}

std::optional<X86Signature> host_x86_signature() {
#if defined(__x86_64__) || defined(__i386__)
  CpuidRegisters leaf0, leaf1;
  if (!__get_cpuid(0, &leaf0.eax, &leaf0.ebx, &leaf0.ecx, &leaf0.edx)) return std::nullopt;
  if (!__get_cpuid(1, &leaf1.eax, &leaf1.ebx, &leaf1.ecx, &leaf1.edx)) return std::nullopt;
  return decode_cpuid_signature(leaf0, leaf1);
#else
  return std::nullopt;
#endif
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

const std::vector<ArchitecturalEvent>& intel_architectural_events() {
  static const std::vector<ArchitecturalEvent> table = parse_table(kIntelArchitecturalEventsCsv);
  return table;
}

const ArchitecturalEvent* find_architectural_event(const std::string& name) {
  for (const ArchitecturalEvent& event : intel_architectural_events())
    if (strcasecmp(event.name.c_str(), name.c_str()) == 0) return &event;
  return nullptr;
}

}  // namespace perfmon::events
