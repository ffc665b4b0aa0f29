// SPDX-License-Identifier: Apache-2.0
// The inside of perfmon::SymbolTables, for the library and its fuzz target: one file's functions
// and segments, and the reader of an ELF file's bytes.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "perfmon/symbols.hpp"
#include "profiles/kept_text.hpp"

namespace perfmon {

// Functions sorted by start, and how file offsets of the executable segments map to addresses.
struct SymbolTables::Table {
  struct Function {
    std::uint64_t start, size;
    std::string_view name;  // in `names`
  };
  struct Segment {
    std::uint64_t file_offset, file_size, address;
  };
  std::vector<Function> functions;
  std::vector<Function> plt_stubs;  // "f@plt", synthesized from the relocations as perf names them
  std::vector<Segment> segments;
  std::uint16_t machine = 0;       // the ELF header's e_machine
  bool names_from_symtab = false;  // else from .dynsym, or none: a separate debug file may name more
  analysis::KeptText names;        // the functions' and stubs' names (a kernel has 100,000 of them)

  // The name to show for one of `functions`: a C++ name demangled when first asked, as most of a
  // large program's are never shown. Kept as long as the table; thread-safe.
  const std::string_view* shown_name(const Function& function) const;

  const Function* at(std::uint64_t address) const {
    // A stub is looked for first: a symbol before the PLT without a size (_init) would reach over it.
    if (const Function* stub = in(plt_stubs, address)) return stub;
    return in(functions, address);
  }

 private:
  static const Function* in(const std::vector<Function>& sorted, std::uint64_t address) {
    auto after = std::upper_bound(sorted.begin(), sorted.end(), address,
                                  [](std::uint64_t a, const Function& f) { return a < f.start; });
    if (after == sorted.begin()) return nullptr;
    const Function& candidate = *std::prev(after);
    // A symbol without a size (kallsyms gives none) reaches to the next one.
    if (candidate.size != 0 && address - candidate.start >= candidate.size) return nullptr;
    return &candidate;
  }

 public:
  // The address that a file offset of an executable segment holds, or nullopt.
  std::optional<std::uint64_t> address_of(std::uint64_t file_offset) const {
    for (const Segment& segment : segments)
      if (file_offset >= segment.file_offset && file_offset - segment.file_offset < segment.file_size)
        return file_offset - segment.file_offset + segment.address;
    return std::nullopt;
  }
  // The file offset that holds an address of a loaded segment, and how many of the segment's bytes
  // the file holds from there; nullopt outside them.
  std::optional<std::pair<std::uint64_t, std::uint64_t>> file_offset_of(std::uint64_t address) const {
    for (const Segment& segment : segments)
      if (address >= segment.address && address - segment.address < segment.file_size)
        return std::make_pair(address - segment.address + segment.file_offset,
                              segment.file_size - (address - segment.address));
    return std::nullopt;
  }

 private:
  mutable std::mutex demangling_;  // guards what follows, but for the slots' loads
  mutable std::unique_ptr<std::atomic<const std::string_view*>[]> demangled_;            // by function, once shown
  mutable std::atomic<std::atomic<const std::string_view*>*> demangled_slots_{nullptr};  // demangled_'s, once made
  mutable std::deque<std::string_view> demangled_views_;
  mutable analysis::KeptText demangled_text_;
};

// Reads what it needs of a 64-bit ELF file in this machine's byte order: the PT_LOAD segments, the
// functions of .symtab (else .dynsym, hidden versions named "f@VERSION") and the PLT's stubs. Every offset is
// checked against the size, so a damaged file yields fewer names, never a read outside it.
void read_elf_symbols(std::string_view bytes, SymbolTables::Table& table);

// A C++ name as perf shows it: demangled, without its parameter list ("ns::f", not "ns::f(int)");
// any other name as it is.
std::string demangled_function_name(std::string name);

}  // namespace perfmon
