// SPDX-License-Identifier: Apache-2.0
// What a recording's records say of its processes that a reader of its samples caches by: how
// often each process's mappings (and the kernel's) changed — an address named while its process's
// generation stays the same is named the same — and each thread's command, as a NameId.
#pragma once

#include <linux/perf_event.h>

#include <cstdint>
#include <vector>

#include "profiles/flat_index.hpp"
#include "profiles/name_table.hpp"
#include "perfmon/address_space.hpp"

namespace perfmon::analysis {

// A process's address: named once while its process's mappings (and the kernel's) stay as they
// were, which RecordedProcesses::generation_of tells.
struct ProcessAddress {
  std::uint32_t pid = 0;
  bool kernel = false;
  std::uint64_t address = 0;
  bool operator==(const ProcessAddress&) const = default;
};
struct ProcessAddressHash {
  std::size_t operator()(const ProcessAddress& place) const noexcept {
    return mix_words(place.address, std::uint64_t{place.pid} << 1 | place.kernel);
  }
};

class RecordedProcesses {
 public:
  // MMAP, MMAP2, COMM and FORK change the process they begin with (a mapping, an exec, a child); a
  // kernel MMAP the kernel's. COMM's and FORK's threads are named anew when next asked.
  void record(const perf_event_header& header);
  // The generation of a process's addresses (the kernel's included).
  std::uint64_t generation_of(std::uint32_t pid) const;
  // A thread's command as `spaces` names it (":TID" where nothing did), interned in `names`.
  NameId command_of(std::uint32_t tid, const AddressSpaces& spaces, NameTable& names);

 private:
  static constexpr NameId kUnknown = 0xffffffff;
  void forget(std::uint32_t tid);

  FlatIndex<std::uint32_t, WordHash> process_of;  // pid -> in generations
  std::vector<std::uint64_t> generations;
  std::uint64_t kernel_generation = 0;
  FlatIndex<std::uint32_t, WordHash> thread_of;  // tid -> in commands
  std::vector<NameId> commands;                  // kUnknown until asked (again, after a COMM or FORK)
};

}  // namespace perfmon::analysis
