// SPDX-License-Identifier: Apache-2.0
// perfmon: the shape of a machine's caches (size, ways, line size), as sysfs or CPUID describe
// them: what the emulated CPU's cache model is built with (docs/emulated.md).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace perfmon {

// A set-associative cache: `size` bytes in lines of `line_size` bytes, each line in one of
// `associativity` places of its set. A fully associative cache has as many ways as lines.
struct CacheGeometry {
  std::uint64_t size = 0;
  unsigned associativity = 0;
  unsigned line_size = 0;

  std::uint64_t sets() const;
  // Why this cache cannot be modelled ("" when it can): the line size must be a power of two and
  // the size a whole number of sets.
  std::string problem() const;
  // "48 KiB, 12-way, 64-byte lines"
  std::string describe() const;
  bool operator==(const CacheGeometry&) const = default;
};

// The caches the emulated CPU models: first-level instruction and data caches and the last-level
// cache behind them.
struct CacheHierarchy {
  CacheGeometry l1i, l1d, ll;
  std::string source;  // where the geometry comes from: "sysfs", "CPUID leaf 4", ..., "defaults"
};

// This machine's: sysfs (/sys/devices/system/cpu/cpu0/cache), else CPUID on x86 (leaf 4, AMD's
// 8000001DH or 80000005H/80000006H), else 32 KiB 8-way L1 caches and an 8 MiB 16-way LL. The
// last level is the highest unified cache; a level nothing describes takes the default.
CacheHierarchy host_cache_hierarchy();
// The same from a sysfs cache directory (its index*/ entries); nullopt if it describes none.
std::optional<CacheHierarchy> cache_hierarchy_from_sysfs(const std::string& directory);

// cachegrind's "SIZE,ASSOCIATIVITY,LINE_SIZE" (bytes: "32768,8,64"). Throws perfmon::Error
// (InvalidArgument) naming `what` for text that is not three numbers or a cache that cannot be modelled.
CacheGeometry parse_cache_geometry(std::string_view text, std::string_view what);

}  // namespace perfmon
