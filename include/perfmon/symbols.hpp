// SPDX-License-Identifier: Apache-2.0
// perfmon: function names for addresses — from an ELF file's symbol table (.symtab; for a stripped
// file, the .symtab of its separate debug file where one is installed, else .dynsym; the PLT's
// stubs named "f@plt") and the kernel's /proc/kallsyms — and, from a file's DWARF through libdw,
// the functions inlined at an address and its source line. Each file is read once and kept, so
// that a report's memory grows with the files it touches, not with its samples.
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

namespace perfmon {

namespace analysis {
class DebugInfo;
}
class KernelSymbolCopy;

// What a file's DWARF says of the code at an address.
struct SourcePlace {
  std::vector<std::string> inlined;  // the functions inlined there, innermost first
  std::string file;                  // the source file, as the compiler named it ("" unknown)
  unsigned line = 0;                 // its line (0 unknown)
};

// One level of where an instruction's code came from: the function and the source line in it. An
// instruction of an inlined function has several: the line of the function that the symbol table
// names which calls the outermost inlined one, that one's line which calls the next, down to the
// innermost function's own line.
struct SourceFrame {
  std::string function;  // "" for the outermost: the symbol table's function
  std::string file;      // as the compiler named it ("" unknown)
  unsigned line = 0;     // 0 unknown
};

// A function's code as an ELF file holds it.
struct FunctionCode {
  std::string name;
  std::uint64_t start = 0, size = 0;  // the file's own addresses, as its symbol table gives them
  std::vector<std::uint8_t> bytes;    // its instructions; fewer than `size` where the file ends first
  std::uint16_t machine = 0;          // the file's ELF e_machine (EM_X86_64, EM_AARCH64, ...)
};

// Thread-safe: the profiles of the shares of one file, read at once, look up through one.
class SymbolTables {
 public:
  // Separate debug files are looked for under `debug_root` (by build id, then by .gnu_debuglink
  // name) and next to the file, as gdb and perf look.
  explicit SymbolTables(std::string debug_root = "/usr/lib/debug");
  // Files are read from under `root`: a recording's paths are another machine's, whose files lie
  // there here (perf's --symfs). Paths keep their recorded names.
  SymbolTables(std::string debug_root, std::string root);
  ~SymbolTables();

  // The build ids a recording names its files by (PerfDataReader::build_ids): a file whose build id
  // is another now (the program rebuilt since) is not read, its samples left unnamed, rather than
  // named by code that never ran. Call before the first look-up.
  void expect_build_ids(std::map<std::string, std::string> recorded);
  // Each file that changed since the recording, once, in a sentence ("'/usr/bin/app' changed since
  // the recording (build id 1a2b... then, 3c4d... now): ..."), in the order met.
  std::vector<std::string> changed_files() const;

  // The function at `file_offset` of an ELF file (as a mapping's offset gives it), or nullptr;
  // `into` is then the address's offset into it.
  const std::string_view* function_in_file(const std::string& path, std::uint64_t file_offset, std::uint64_t& into);
  // What the DWARF of the file (or of its separate debug file) says of the code at `file_offset`:
  // nullptr where it has none there, or this build has no libdw; kept as long as these tables.
  // The function that the symbol table names for the address encloses the inlined ones.
  const SourcePlace* source_in_file(const std::string& path, std::uint64_t file_offset);
  // The function at `file_offset` with its code, for a disassembler; nullopt where no symbol covers
  // it. The code is read from the file itself (a separate debug file holds none).
  std::optional<FunctionCode> function_code(const std::string& path, std::uint64_t file_offset);
  // Where the code at `address` (the file's own, as FunctionCode::start) came from, outermost first
  // (SourceFrame); empty where DWARF says nothing of it, or this build has no libdw. Not kept: each
  // call asks DWARF again (a disassembly asks once an instruction).
  std::vector<SourceFrame> source_frames(const std::string& path, std::uint64_t address);
  // The kernel function at a kernel address, or nullptr (kallsyms hidden or no such address).
  // /proc/kallsyms is read once per process (about 200,000 lines), as perf reads it once per run:
  // modules loaded after that are not named.
  const std::string_view* function_in_kernel(std::uint64_t address, std::uint64_t& into);
  // Keeps the kernel's function names in `directory` between runs, for every SymbolTables of the
  // process: the first reading of /proc/kallsyms in a boot writes them there (a file
  // "kernel-symbols", mode 0600), and later processes map that copy instead of making the kernel
  // format 200,000 symbols again, as long as the boot, the modules loaded and what /proc/kallsyms
  // shows them are the same. "" (the default) keeps none. The perfmon command keeps them in
  // $XDG_CACHE_HOME/perfmon (~/.cache/perfmon).
  static void keep_kernel_symbols_in(std::string directory);
  // Writes that copy now where the directory keep_kernel_symbols_in gave has none of this boot and
  // modules, so that the process after this one finds it (perfmon record does, after a recording
  // that may hold kernel samples: the report after it does not pay for /proc/kallsyms). Nothing
  // where no directory was given, or this process already read or mapped the kernel's symbols.
  static void keep_kernel_symbols_now();

  // Where separate debug files are looked for, as constructed: where a stack unwinder that reads
  // the same files looks too.
  const std::string& debug_root() const noexcept { return debug_root_; }

  struct Table;  // defined in the library only

 private:
  // Through the calling thread's last answer where it was for the same file, else the maps.
  const Table& table_of(const std::string& path);
  analysis::DebugInfo* dwarf_of(const std::string& path);
  const Table& read_table(const std::string& path);
  analysis::DebugInfo* open_dwarf(const std::string& path);

  // "" when the file may be read; else why not (it changed since the recording). Under mutex_.
  std::string changed_since_recording(const std::string& path, std::string_view bytes);

  std::string debug_root_;
  std::string root_;                                 // "" for this machine's files
  std::map<std::string, std::string> recorded_ids_;  // by path: the recording's build ids (hex)
  std::vector<std::string> changed_;                 // sentences, under mutex_
  std::map<std::string, bool> unchanged_;            // by path, once looked at: may it be read
  std::uint64_t id_;                                 // this one's number, among the SymbolTables of the process
  // Guards the maps; a file's tables, once read, change no more. Looked up far more often than
  // added to: lookups share it.
  mutable std::shared_mutex mutex_;
  std::map<std::string, std::unique_ptr<const Table>> files_;
  // By thread and file (null: the file has none): a libdw session answers one thread at a time,
  // and a thread of its own asks without waiting on another's.
  std::map<std::pair<std::thread::id, std::string>, std::unique_ptr<analysis::DebugInfo>> dwarf_;
  // An earlier run's copy of the kernel's symbols (nullptr where there is none of this boot), and
  // /proc/kallsyms read; once looked up in, each stays as long as these tables. Under a lock.
  const KernelSymbolCopy* kernel_copy();
  const Table& kernel_table();

  std::shared_ptr<const KernelSymbolCopy> kernel_copy_;
  bool kernel_copy_tried_ = false;
  std::atomic<const KernelSymbolCopy*> kernel_copy_found_{nullptr};  // kernel_copy_'s, once found (under a lock)
  std::shared_ptr<const Table> kernel_;                              // the process's one reading of /proc/kallsyms
  std::atomic<const Table*> kernel_table_{nullptr};                  // kernel_'s, once set (under a lock)
};

}  // namespace perfmon
