// SPDX-License-Identifier: Apache-2.0
// User call stacks of samples recorded with user registers and a copy of the user stack
// (perf record --call-graph dwarf): unwound by each file's CFI (.eh_frame, .debug_frame) through
// elfutils' libdwfl, at report time, one libdwfl session per process, kept for its later samples.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "perfmon/sample.hpp"

namespace perfmon::analysis {

class DwarfUnwinder {
 public:
  // Finds the file mapped at an address of a process: its path and load base (the address of the
  // file's byte 0). False where nothing is mapped.
  using Locate = std::function<bool(std::uint32_t pid, std::uint64_t address, std::string& path, std::uint64_t& base)>;

  // Separate debug files (whose .debug_frame a file without .eh_frame may need) are looked for
  // beside the files and under `debug_root`, as SymbolTables looks for them.
  explicit DwarfUnwinder(const std::string& debug_root);
  ~DwarfUnwinder();
  DwarfUnwinder(const DwarfUnwinder&) = delete;
  DwarfUnwinder& operator=(const DwarfUnwinder&) = delete;

  // Whether this build can unwind (it was built with libdw) for this machine's architecture.
  static bool available() noexcept;

  // Appends the user frames of `sample`, leaf first (the sampled pc, then return addresses), to
  // `frames`, at most `max_frames`. `regs_mask` is the attr's sample_regs_user, which says which
  // registers the sample's user_regs hold; `locate` places the process's files. Returns how many
  // it appended (0 when the sample has no user registers or stack, they lack the pc or stack
  // pointer, or no file is mapped at the pc).
  std::size_t unwind(const Sample& sample, std::uint64_t regs_mask, const Locate& locate,
                     std::vector<std::uint64_t>& frames, std::size_t max_frames = 127);

  // Drops the session of a process whose files changed (it exec'd, or its pid is another's now).
  void forget(std::uint32_t pid);

  struct Process;   // libdwfl's session of one process
  struct Settings;  // what every session is begun with

 private:
  std::unique_ptr<Settings> settings_;
  std::map<std::uint32_t, std::unique_ptr<Process>> processes_;
};

}  // namespace perfmon::analysis
