// The inside of perfmon::SymbolTables, for the library and its fuzz target: one file's functions
// and segments, and the reader of an ELF file's bytes.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "perfmon/symbols.hpp"

namespace perfmon {

// Functions sorted by start, and how file offsets of the executable segments map to addresses.
struct SymbolTables::Table {
  struct Function {
    std::uint64_t start, size;
    std::string name;
  };
  struct Segment {
    std::uint64_t file_offset, file_size, address;
  };
  std::vector<Function> functions;
  std::vector<Segment> segments;
  bool names_from_symtab = false;  // else from .dynsym, or none: a separate debug file may name more

  const Function* at(std::uint64_t address) const {
    auto after = std::upper_bound(functions.begin(), functions.end(), address,
                                  [](std::uint64_t a, const Function& f) { return a < f.start; });
    if (after == functions.begin()) return nullptr;
    const Function& candidate = *std::prev(after);
    // A symbol without a size (kallsyms gives none) reaches to the next one.
    if (candidate.size != 0 && address - candidate.start >= candidate.size) return nullptr;
    return &candidate;
  }
};

// Reads what it needs of a 64-bit ELF file in this machine's byte order: the PT_LOAD segments and
// the functions of .symtab (else .dynsym, hidden versions named "f@VERSION"). Every offset is
// checked against the size, so a damaged file yields fewer names, never a read outside it.
void read_elf_symbols(std::string_view bytes, SymbolTables::Table& table);

}  // namespace perfmon
