#include "perfmon/symbols.hpp"

#include "analysis/symbol_table.hpp"
#include "kernel/file_mapping.hpp"

#include <elf.h>

#include <cxxabi.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <sstream>
#include <tuple>
#include <vector>

namespace perfmon {

namespace {

// A C++ name as perf shows it: demangled, without its parameter list ("ns::f", not "ns::f(int)").
std::string demangled(std::string name) {
  if (!name.starts_with("_Z")) return name;
  int status = 0;
  std::unique_ptr<char, decltype(&std::free)> text(abi::__cxa_demangle(name.c_str(), nullptr, nullptr, &status),
                                                   &std::free);
  if (status != 0 || !text) return name;
  std::string readable(text.get());
  // The parameters are the parenthesis that closes last, taken back to the one that opens it.
  const std::size_t close = readable.rfind(')');
  if (close == std::string::npos) return readable;
  int depth = 0;
  for (std::size_t i = close + 1; i-- > 0;) {
    depth += readable[i] == ')' ? 1 : readable[i] == '(' ? -1 : 0;
    if (depth == 0) return i == 0 ? readable : readable.substr(0, i);
  }
  return readable;
}

struct Found {
  SymbolTables::Table::Function function;
  unsigned binding;
};

}  // namespace

void read_elf_symbols(std::string_view bytes, SymbolTables::Table& table) {
  std::vector<Found> found;
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
        const unsigned type = ELF64_ST_TYPE(symbol.st_info);
        if ((type != STT_FUNC && type != STT_GNU_IFUNC) || symbol.st_value == 0 || symbol.st_name >= names.sh_size)
          continue;
        const char* name = bytes.data() + names.sh_offset + symbol.st_name;
        found.push_back({{symbol.st_value, symbol.st_size,
                          demangled(std::string(name, strnlen(name, names.sh_size - symbol.st_name)))},
                         static_cast<unsigned>(ELF64_ST_BIND(symbol.st_info))});
      }
    }
    if (!found.empty()) break;  // .symtab holds all of .dynsym's
  }
  // Of the names of one address (aliases such as btowc and __btowc), the one perf shows (its
  // choose_best_symbol): one with a size, then global before weak before local, then the fewest
  // leading underscores, then the longest.
  auto rank = [](const Found& f) {
    const std::size_t underscores = f.function.name.find_first_not_of('_');
    return std::make_tuple(f.function.size != 0,
                           f.binding == STB_GLOBAL ? 2
                           : f.binding == STB_WEAK ? 1
                                                   : 0,
                           -static_cast<long>(underscores == std::string::npos ? 0 : underscores),
                           f.function.name.size());
  };
  std::sort(found.begin(), found.end(), [&](const Found& a, const Found& b) {
    return a.function.start != b.function.start ? a.function.start < b.function.start : rank(a) > rank(b);
  });
  for (Found& f : found)
    if (table.functions.empty() || table.functions.back().start != f.function.start)
      table.functions.push_back(std::move(f.function));
}

SymbolTables::SymbolTables() = default;
SymbolTables::~SymbolTables() = default;

const std::string* SymbolTables::function_in_file(const std::string& path, std::uint64_t file_offset,
                                                  std::uint64_t& into) {
  std::unique_ptr<Table>& table = files_[path];
  if (!table) {
    table = std::make_unique<Table>();
    // Regular files only, mapped rather than copied: a recording may name /dev/zero or a FIFO.
    if (const std::optional<kernel::FileMapping> file = kernel::FileMapping::map(path))
      read_elf_symbols(file->bytes(), *table);
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
