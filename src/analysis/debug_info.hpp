// What a file's DWARF says of its code, through elfutils' libdwfl: the functions inlined at an
// address and its source line. One libdwfl session per file, opened on first use and kept: the
// file's debug information (or its separate debug file's) is indexed once.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>

#include "perfmon/symbols.hpp"

namespace perfmon::analysis {

class DebugInfo {
 public:
  // The file's session, or nullptr where this build has no libdw or the file is no ELF file.
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

  struct Session;  // libdwfl's
  explicit DebugInfo(std::unique_ptr<Session> session);

 private:
  bool look_up(std::uint64_t address, SourcePlace& place);

  std::unique_ptr<Session> session_;
  std::unordered_map<std::uint64_t, std::optional<SourcePlace>> described_;  // nullopt: nothing there
};

}  // namespace perfmon::analysis
