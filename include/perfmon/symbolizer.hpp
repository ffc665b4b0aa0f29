// SPDX-License-Identifier: Apache-2.0
// perfmon: a recording's addresses named, as perf report and perf script both need them — where an
// address lies (address_space.hpp), the function there (symbols.hpp), the functions inlined there
// and its source line (DWARF), and the user call stacks of samples recorded with --call-graph
// dwarf unwound from their copied registers and stack.
#pragma once

#include <linux/perf_event.h>

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "perfmon/address_space.hpp"
#include "perfmon/sample.hpp"
#include "perfmon/symbols.hpp"

namespace perfmon {

namespace analysis {
class DwarfUnwinder;
}

// An address named: its file, the function there, and (where asked) what DWARF says of it.
struct NamedAddress {
  PlacedAddress place;                         // file and offset in it
  const std::string_view* function = nullptr;  // nullptr where no symbol covers it; kept by the Symbolizer
  std::uint64_t into = 0;                      // the address's offset into the function
  bool kernel = false;                         // a kernel address (perf's [k])
};

class Symbolizer {
 public:
  explicit Symbolizer(std::string debug_root = "/usr/lib/debug");
  // Names through `symbols`, which other symbolizers may share (each file's symbols read once).
  explicit Symbolizer(std::shared_ptr<SymbolTables> symbols);
  ~Symbolizer();
  Symbolizer(const Symbolizer&) = delete;
  Symbolizer& operator=(const Symbolizer&) = delete;

  // COMM, MMAP, MMAP2, FORK and EXIT records place the samples that follow them.
  void record(const perf_event_header& record);
  const AddressSpaces& spaces() const noexcept { return spaces_; }

  // Samples of `event` carry user registers (`sample_regs_user`, the attr's) and a copy of the
  // user stack: callchain() unwinds their user frames with libdw. False where this build cannot
  // (no libdw, or another architecture).
  bool unwind_user_stacks(std::size_t event, std::uint64_t sample_regs_user);
  // The sample's callchain: as recorded, or with its user part unwound (valid until the next call).
  std::span<const std::uint64_t> callchain(std::size_t event, const Sample& sample);

  // Calls visit(address, kernel) for each frame of a callchain, leaf first (its PERF_CONTEXT_*
  // words say whose addresses follow; `kernel_leaf` whose the first is, before any such word). A
  // visit that returns bool stops the walk by returning false.
  template <class Visit>
  static void for_each_frame(std::span<const std::uint64_t> callchain, bool kernel_leaf, Visit visit) {
    bool kernel = kernel_leaf;
    for (std::uint64_t address : callchain) {
      if (address >= PERF_CONTEXT_MAX) {
        kernel = address == PERF_CONTEXT_KERNEL || address == PERF_CONTEXT_HV;
        continue;
      }
      if constexpr (std::is_same_v<decltype(visit(address, kernel)), bool>) {
        if (!visit(address, kernel)) return;
      } else {
        visit(address, kernel);
      }
    }
  }

  // Names an address of a process (`kernel`: known to be the kernel's).
  NamedAddress name(std::uint32_t pid, std::uint64_t address, bool kernel);
  // What DWARF says of a named address in a file: nullptr where it says nothing (kept as long as
  // this symbolizer's tables).
  const SourcePlace* source(const NamedAddress& named);

 private:
  AddressSpaces spaces_;
  std::shared_ptr<SymbolTables> symbols_;
  std::unique_ptr<analysis::DwarfUnwinder> unwinder_;
  std::vector<std::uint64_t> unwind_masks_;  // by event: sample_regs_user, 0 for none
  std::vector<std::uint64_t> unwound_;       // the sample at hand's callchain, unwound
};

// A source line as perf report's srcline shows it: "file.c:12" (the file's last component; ":0"
// where the address's compilation unit has no line for it); without DWARF for the address,
// "function+12" (decimal); else "file[0x1f0]" without 0x (the dso's short name and offset).
std::string source_line_text(const NamedAddress& named, const SourcePlace* place);

}  // namespace perfmon
