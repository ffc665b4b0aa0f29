// SPDX-License-Identifier: Apache-2.0
#include "perfmon/cache_geometry.hpp"

#include <charconv>
#include <cstdlib>
#include <vector>

#include "arch/x86/cpuid.hpp"
#include "kernel/text_file.hpp"
#include "perfmon/error.hpp"

namespace perfmon {

namespace {

constexpr CacheGeometry kDefaultL1{32 * 1024, 8, 64};
constexpr CacheGeometry kDefaultLastLevel{8 * 1024 * 1024, 16, 64};

bool power_of_two(std::uint64_t n) {
  return n != 0 && (n & (n - 1)) == 0;
}

std::string bytes_text(std::uint64_t bytes) {
  if (bytes % (1024 * 1024) == 0) return std::to_string(bytes / (1024 * 1024)) + " MiB";
  if (bytes % 1024 == 0) return std::to_string(bytes / 1024) + " KiB";
  return std::to_string(bytes) + " B";
}

// A cache as it is described: `ways` 0 for fully associative.
CacheGeometry geometry(std::uint64_t size, unsigned ways, unsigned line_size) {
  if (ways == 0 && line_size != 0) ways = static_cast<unsigned>(size / line_size);
  return CacheGeometry{size, ways, line_size};
}

// The levels found, each slot kept empty (size 0) where nothing usable describes it; then the
// defaults fill the gaps.
struct Found {
  CacheGeometry l1i, l1d, ll;
  unsigned ll_level = 0;
  bool any = false;

  void add(unsigned level, arch::CpuidCache::Kind kind, const CacheGeometry& cache) {
    if (!cache.problem().empty()) return;
    any = true;
    if (level == 1 && kind == arch::CpuidCache::Kind::Instruction) l1i = cache;
    if (level == 1 && kind == arch::CpuidCache::Kind::Data) l1d = cache;
    if (level >= 2 && kind == arch::CpuidCache::Kind::Unified && level > ll_level) {
      ll = cache;
      ll_level = level;
    }
  }
  CacheHierarchy hierarchy(std::string source) const {
    CacheHierarchy h{l1i.size != 0 ? l1i : kDefaultL1, l1d.size != 0 ? l1d : kDefaultL1,
                     ll.size != 0 ? ll : kDefaultLastLevel, std::move(source)};
    if (l1i.size == 0 || l1d.size == 0 || ll.size == 0) h.source += " and defaults";
    return h;
  }
};

std::optional<std::uint64_t> number(std::string_view text) {
  std::uint64_t value = 0;
  const char* end = text.data() + text.size();
  auto [next, ec] = std::from_chars(text.data(), end, value);
  if (ec != std::errc() || next == text.data()) return std::nullopt;
  if (next != end && *next == 'K') value *= 1024, ++next;
  if (next != end && *next == 'M') value *= 1024 * 1024, ++next;
  if (next != end) return std::nullopt;
  return value;
}

std::optional<CacheHierarchy> from_cpuid() {
  const std::optional<arch::X86Signature> signature = arch::host_x86_signature();
  if (!signature) return std::nullopt;
  Found found;
  const bool amd = signature->vendor == "AuthenticAMD" || signature->vendor == "HygonGenuine";
  const std::optional<arch::CpuidRegisters> extended = arch::host_cpuid(0x80000001);
  const bool topology_extensions = extended && ((extended->ecx >> 22) & 1) != 0;
  // Leaf 4 (Intel) and 8000001DH (AMD with topology extensions) list every cache alike.
  const std::uint32_t list_leaf = amd ? (topology_extensions ? 0x8000001d : 0) : 4;
  std::string source = amd ? "CPUID 8000001DH" : "CPUID leaf 4";
  for (std::uint32_t subleaf = 0; list_leaf != 0 && subleaf < 16; ++subleaf) {
    const std::optional<arch::CpuidRegisters> leaf = arch::host_cpuid(list_leaf, subleaf);
    if (!leaf) break;
    const arch::CpuidCache cache = arch::decode_cpuid_cache_parameters(*leaf);
    if (cache.level == 0) break;
    found.add(cache.level, cache.kind, geometry(cache.size, cache.ways, cache.line_size));
  }
  if (!found.any && amd) {
    const std::optional<arch::CpuidRegisters> leaf5 = arch::host_cpuid(0x80000005),
                                              leaf6 = arch::host_cpuid(0x80000006);
    if (leaf5 && leaf6)
      for (const arch::CpuidCache& cache : arch::decode_cpuid_amd_caches(*leaf5, *leaf6))
        found.add(cache.level, cache.kind, geometry(cache.size, cache.ways, cache.line_size));
    source = "CPUID 80000005H and 80000006H";
  }
  if (!found.any) return std::nullopt;
  return found.hierarchy(source);
}

}  // namespace

std::uint64_t CacheGeometry::sets() const {
  const std::uint64_t set_bytes = std::uint64_t{associativity} * line_size;
  return set_bytes == 0 ? 0 : size / set_bytes;
}

std::string CacheGeometry::problem() const {
  if (!power_of_two(line_size)) return "its line size must be a power of two";
  if (associativity == 0) return "its associativity must be at least 1";
  if (sets() == 0 || sets() * associativity * line_size != size)
    return "its size must be a whole number of sets (associativity x line size)";
  return "";
}

std::string CacheGeometry::describe() const {
  const bool fully = sets() == 1 && associativity > 1;
  return bytes_text(size) + ", " + (fully ? std::string("fully associative") : std::to_string(associativity) + "-way") +
         ", " + std::to_string(line_size) + "-byte lines";
}

std::optional<CacheHierarchy> cache_hierarchy_from_sysfs(const std::string& directory) {
  Found found;
  for (int index = 0; index < 16; ++index) {
    const std::string entry = directory + "/index" + std::to_string(index) + "/";
    const std::string type = kernel::read_first_line(entry + "type");
    if (type.empty()) break;
    const std::optional<std::uint64_t> level = number(kernel::read_first_line(entry + "level"));
    const std::optional<std::uint64_t> size = number(kernel::read_first_line(entry + "size"));
    const std::optional<std::uint64_t> ways = number(kernel::read_first_line(entry + "ways_of_associativity"));
    const std::optional<std::uint64_t> line = number(kernel::read_first_line(entry + "coherency_line_size"));
    if (!level || !size || !ways || !line) continue;
    const arch::CpuidCache::Kind kind = type == "Data"          ? arch::CpuidCache::Kind::Data
                                        : type == "Instruction" ? arch::CpuidCache::Kind::Instruction
                                                                : arch::CpuidCache::Kind::Unified;
    found.add(static_cast<unsigned>(*level), kind,
              geometry(*size, static_cast<unsigned>(*ways), static_cast<unsigned>(*line)));
  }
  if (!found.any) return std::nullopt;
  return found.hierarchy("sysfs");
}

CacheHierarchy host_cache_hierarchy() {
  if (std::optional<CacheHierarchy> sysfs = cache_hierarchy_from_sysfs("/sys/devices/system/cpu/cpu0/cache"))
    return *sysfs;
  if (std::optional<CacheHierarchy> cpuid = from_cpuid()) return *cpuid;
  return CacheHierarchy{kDefaultL1, kDefaultL1, kDefaultLastLevel, "defaults"};
}

CacheGeometry parse_cache_geometry(std::string_view text, std::string_view what) {
  std::uint64_t values[3] = {};
  std::string_view rest = text;
  bool ok = true;
  for (int k = 0; k < 3 && ok; ++k) {
    const std::size_t comma = rest.find(',');
    if ((k < 2) == (comma == std::string_view::npos)) ok = false;
    const std::optional<std::uint64_t> value = ok ? number(rest.substr(0, comma)) : std::nullopt;
    ok = ok && value && *value > 0 && (k == 0 || *value <= 0xffffffffU);
    if (ok) values[k] = *value;
    rest.remove_prefix(comma == std::string_view::npos ? rest.size() : comma + 1);
  }
  const std::string name(what);
  if (!ok)
    throw Error(ErrorKind::InvalidArgument,
                name + " takes SIZE,ASSOCIATIVITY,LINE_SIZE in bytes, like 32768,8,64 (cachegrind's form), not '" +
                    std::string(text) + "'.");
  const CacheGeometry cache{values[0], static_cast<unsigned>(values[1]), static_cast<unsigned>(values[2])};
  if (const std::string problem = cache.problem(); !problem.empty())
    throw Error(ErrorKind::InvalidArgument,
                "the cache " + name + "=" + std::string(text) + " cannot be modelled: " + problem + ".");
  return cache;
}

}  // namespace perfmon
