// perfmon: function names for addresses — from an ELF file's symbol table (.symtab; for a stripped
// file, the .symtab of its separate debug file where one is installed, else .dynsym) and the
// kernel's /proc/kallsyms — each file read once and kept, so that a report's memory grows with the
// files it touches, not with its samples.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>

namespace perfmon {

class SymbolTables {
 public:
  // Separate debug files are looked for under `debug_root` (by build id, then by .gnu_debuglink
  // name) and next to the file, as gdb and perf look.
  explicit SymbolTables(std::string debug_root = "/usr/lib/debug");
  ~SymbolTables();

  // The function at `file_offset` of an ELF file (as a mapping's offset gives it), or nullptr;
  // `into` is then the address's offset into it.
  const std::string* function_in_file(const std::string& path, std::uint64_t file_offset, std::uint64_t& into);
  // The kernel function at a kernel address, or nullptr (kallsyms hidden or no such address).
  const std::string* function_in_kernel(std::uint64_t address, std::uint64_t& into);

  struct Table;  // defined in the library only

 private:
  std::string debug_root_;
  std::map<std::string, std::unique_ptr<Table>> files_;
  std::unique_ptr<Table> kernel_;
};

}  // namespace perfmon
