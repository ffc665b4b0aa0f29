#include "perfmon/symbols.hpp"

#include "analysis/symbol_table.hpp"
#include "kernel/text_file.hpp"

#include <elf.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <sstream>
#include <vector>

namespace perfmon {

void read_elf_symbols(std::string_view bytes, SymbolTables::Table& table) {
  auto fits = [&](std::uint64_t offset, std::uint64_t size) {
    return offset <= bytes.size() && size <= bytes.size() - offset;
  };
  Elf64_Ehdr header;
  if (!fits(0, sizeof header)) return;
  std::memcpy(&header, bytes.data(), sizeof header);
  if (std::memcmp(header.e_ident, ELFMAG, SELFMAG) != 0 || header.e_ident[EI_CLASS] != ELFCLASS64) return;
  for (unsigned i = 0; i < header.e_phnum; ++i) {
    Elf64_Phdr segment;
    if (!fits(header.e_phoff + i * sizeof segment, sizeof segment)) break;
    std::memcpy(&segment, bytes.data() + header.e_phoff + i * sizeof segment, sizeof segment);
    if (segment.p_type == PT_LOAD) table.segments.push_back({segment.p_offset, segment.p_filesz, segment.p_vaddr});
  }
  std::vector<Elf64_Shdr> sections(header.e_shnum);
  if (header.e_shentsize != sizeof(Elf64_Shdr) || !fits(header.e_shoff, sections.size() * sizeof(Elf64_Shdr))) return;
  if (!sections.empty())
    std::memcpy(sections.data(), bytes.data() + header.e_shoff, sections.size() * sizeof(Elf64_Shdr));
  for (Elf64_Word wanted : {SHT_SYMTAB, SHT_DYNSYM}) {
    for (const Elf64_Shdr& symbols : sections) {
      if (symbols.sh_type != wanted || symbols.sh_link >= sections.size()) continue;
      const Elf64_Shdr& names = sections[symbols.sh_link];
      if (!fits(symbols.sh_offset, symbols.sh_size) || !fits(names.sh_offset, names.sh_size)) continue;
      for (std::uint64_t at = 0; at + sizeof(Elf64_Sym) <= symbols.sh_size; at += sizeof(Elf64_Sym)) {
        Elf64_Sym symbol;
        std::memcpy(&symbol, bytes.data() + symbols.sh_offset + at, sizeof symbol);
        if (ELF64_ST_TYPE(symbol.st_info) != STT_FUNC || symbol.st_value == 0 || symbol.st_name >= names.sh_size)
          continue;
        const char* name = bytes.data() + names.sh_offset + symbol.st_name;
        table.functions.push_back(
            {symbol.st_value, symbol.st_size, std::string(name, strnlen(name, names.sh_size - symbol.st_name))});
      }
    }
    if (!table.functions.empty()) break;  // .symtab holds all of .dynsym's
  }
  std::sort(table.functions.begin(), table.functions.end(),
            [](const auto& a, const auto& b) { return a.start < b.start; });
}

SymbolTables::SymbolTables() = default;
SymbolTables::~SymbolTables() = default;

const std::string* SymbolTables::function_in_file(const std::string& path, std::uint64_t file_offset,
                                                  std::uint64_t& into) {
  std::unique_ptr<Table>& table = files_[path];
  if (!table) {
    table = std::make_unique<Table>();
    read_elf_symbols(kernel::read_whole_file(path).value_or(std::string()), *table);
  }
  for (const Table::Segment& segment : table->segments) {
    if (file_offset < segment.file_offset || file_offset - segment.file_offset >= segment.file_size) continue;
    const std::uint64_t address = file_offset - segment.file_offset + segment.address;
    if (const Table::Function* function = table->at(address)) {
      into = address - function->start;
      return &function->name;
    }
  }
  return nullptr;
}

const std::string* SymbolTables::function_in_kernel(std::uint64_t address, std::uint64_t& into) {
  if (!kernel_) {
    kernel_ = std::make_unique<Table>();
    std::ifstream kallsyms("/proc/kallsyms");
    std::uint64_t start;
    std::string type, name;
    for (std::string line; std::getline(kallsyms, line);) {
      std::istringstream fields(line);
      if (!(fields >> std::hex >> start >> type >> name) || start == 0 || (type != "t" && type != "T")) continue;
      kernel_->functions.push_back({start, 0, name});
    }
    std::sort(kernel_->functions.begin(), kernel_->functions.end(),
              [](const auto& a, const auto& b) { return a.start < b.start; });
  }
  const Table::Function* function = kernel_->at(address);
  if (function == nullptr) return nullptr;
  into = address - function->start;
  return &function->name;
}

}  // namespace perfmon
