// SPDX-License-Identifier: Apache-2.0
// What a file's DWARF says of its code, through elfutils' libdwfl: the functions inlined at an
// address and its source line. One libdwfl session per file, opened on first use and kept: the
// file's debug information (or its separate debug file's) is indexed once.
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "profiles/flat_index.hpp"
#include "perfmon/symbols.hpp"

namespace perfmon::analysis {

class DebugInfo {
 public:
  // The file's session, or nullptr where this build has no libdw, the file is no ELF file or
  // neither it nor a separate debug file has DWARF.
  // Separate debug files are looked for beside the file, in .debug/ beside it and under
  // `debug_root` (by build id, then by .gnu_debuglink name).
  static std::unique_ptr<DebugInfo> open(const std::string& path, const std::string& debug_root);
  ~DebugInfo();
  DebugInfo(const DebugInfo&) = delete;
  DebugInfo& operator=(const DebugInfo&) = delete;

  // What DWARF says of the code at `address` (the file's own, as its symbol table gives them), or
  // nullptr where it does not cover the address; kept as long as this session. Each address is
  // looked up once: a recording passes the same few thousand addresses millions of times. One
  // thread at a time.
  const SourcePlace* describe(std::uint64_t address);

  // Where the code at `address` came from, outermost first (perfmon::SourceFrame); empty where
  // DWARF does not cover it. Not kept.
  std::vector<SourceFrame> frames(std::uint64_t address);

  struct Session;  // libdwfl's
  explicit DebugInfo(std::unique_ptr<Session> session);

 private:
  bool look_up(std::uint64_t address, SourcePlace& place);

  std::unique_ptr<Session> session_;
  static constexpr std::uint32_t kNothing = 0xfffffffe;  // DWARF says nothing of the address
  FlatIndex<std::uint64_t, WordHash> described_;         // address -> in places_, or kNothing
  std::deque<SourcePlace> places_;                       // where they stay while the session lasts
};

}  // namespace perfmon::analysis
