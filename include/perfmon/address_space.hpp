// SPDX-License-Identifier: Apache-2.0
// perfmon: the processes of a recording as its records describe them — each thread's command name
// (COMM), each process's mappings (MMAP, MMAP2, kept across FORK, dropped at exec) and the
// kernel's — so that a sample's address can be placed in the file it came from.
#pragma once

#include <linux/perf_event.h>
#include <sys/types.h>

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace perfmon {

struct PlacedAddress {
  std::string file;          // "/usr/lib/x86_64-linux-gnu/libc.so.6", "[kernel.kallsyms]", "[vdso]", or "[unknown]"
  std::uint64_t offset = 0;  // from the start of the file's mapping, plus its file offset
  // The mapping that holds it: its addresses [start, end) and the file offset at start (all 0 for
  // an address of no mapping).
  std::uint64_t mapping_start = 0, mapping_end = 0, mapping_offset = 0;
};

// The name perf shows for a mapped file: its last component ("[kernel.kallsyms]" and "[vdso]" whole).
std::string dso_short_name(std::string_view path);

class AddressSpaces {
 public:
  // Takes in a non-sample record (COMM, MMAP, MMAP2, FORK); ignores the others.
  void record(const perf_event_header& record);
  // The command name of a thread ("" when no record named it).
  const std::string& command(std::uint32_t tid) const;
  // Where an address of a process lies.
  PlacedAddress place(std::uint32_t pid, std::uint64_t address) const;

 private:
  struct Mapping {
    std::uint64_t start, length, file_offset;
    std::string file;
  };
  // A process's mappings: its own, newest last, then those of the process it was forked from as
  // they were at the fork (the first `inherited` of the parent's own, and so on up). Shared, never
  // copied: a recording of many forks costs memory in its records' size, not forks × mappings.
  struct Space {
    std::vector<Mapping> own;
    std::shared_ptr<const Space> parent;
    std::size_t inherited = 0;
  };
  std::vector<Mapping>& own_mappings(std::uint32_t pid);

  std::map<std::uint32_t, std::string> commands_;              // by tid
  std::map<std::uint32_t, std::shared_ptr<Space>> processes_;  // by pid
  std::vector<Mapping> kernel_;
};

}  // namespace perfmon
