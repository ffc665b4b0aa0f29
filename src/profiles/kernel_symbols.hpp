// SPDX-License-Identifier: Apache-2.0
// The kernel's function names: /proc/kallsyms, and a copy of them kept between the runs of one boot.
// Reading /proc/kallsyms costs the kernel's formatting of every symbol (a third of a medium
// report's time); the copy is mapped instead, and checked against the boot, the modules loaded and
// what /proc/kallsyms shows this process now.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>

#include "kernel/fd.hpp"
#include "kernel/file_mapping.hpp"
#include "profiles/kept_text.hpp"

#include "profiles/symbol_table.hpp"

namespace perfmon {

// The text symbols of /proc/kallsyms ("ffffffff81000000 T _stext [module]"), sorted by address;
// none where kallsyms hides the addresses. A symbol reaches to the next, as kallsyms gives no
// sizes. Where `cache_directory` is not empty, the symbols of the kernel and its modules are also
// written there (a file "kernel-symbols", replaced whole) for KernelSymbolCopy; a
// directory that cannot be written is no error, the copy is not made. (Tests give another file
// of kallsyms' form.)
std::shared_ptr<const SymbolTables::Table> read_kernel_symbols(const std::string& cache_directory,
                                                               const char* kallsyms = "/proc/kallsyms");

// The copy read_kernel_symbols wrote in a directory, mapped and looked up where it lies: of its
// pages only those a look-up touches are read, and the names of the functions found are the only
// ones kept. Its functions end at the next function of their module, and each module's last one is
// left out, as kallsyms does not say where it ends: an address that none covers (there, or in code
// loaded since, such as a BPF program) is for /proc/kallsyms to name.
class KernelSymbolCopy {
 public:
  // The copy, where it is of this boot, of the modules loaded now and of what /proc/kallsyms shows
  // this process now; else nullptr.
  static std::unique_ptr<const KernelSymbolCopy> map(const std::string& cache_directory);

  // The name of the function that covers `address`, kept as long as the copy (`into`: the
  // address's offset into it); nullptr where none does.
  const std::string_view* at(std::uint64_t address, std::uint64_t& into) const;

  struct Entry;  // as the file holds them
  // A copy whose header map() checked: `count` entries from `base`, mapped, and its names read
  // through `names`.
  KernelSymbolCopy(kernel::FileMapping file, kernel::FileDescriptor names, std::uint64_t base, std::uint64_t count);

 private:
  Entry entry(std::uint64_t index) const;

  kernel::FileMapping file_;
  kernel::FileDescriptor names_file_;
  std::uint64_t base_, count_, names_at_, names_size_;
  mutable std::mutex mutex_;
  mutable std::unordered_map<std::uint64_t, std::string_view> found_;  // by entry: the names given out
  mutable analysis::KeptText names_;                                   // theirs
};

}  // namespace perfmon
