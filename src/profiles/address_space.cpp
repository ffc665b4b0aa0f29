// SPDX-License-Identifier: Apache-2.0
#include "perfmon/address_space.hpp"

#include "kernel/records.hpp"

namespace perfmon {

std::string dso_short_name(std::string_view path) {
  const std::size_t slash = path.rfind('/');
  return std::string(slash == std::string_view::npos || path.starts_with('[') ? path : path.substr(slash + 1));
}

std::vector<AddressSpaces::Mapping>& AddressSpaces::own_mappings(std::uint32_t pid) {
  std::shared_ptr<Space>& space = processes_[pid];
  if (space == nullptr) space = std::make_shared<Space>();
  return space->own;
}

void AddressSpaces::record(const perf_event_header& header) {
  using namespace kernel;
  switch (header.type) {
    case PERF_RECORD_COMM:
      if (const auto* comm = record_as<CommRecord>(&header)) {
        // An exec replaces the process's mappings; its new ones follow.
        if (header.misc & PERF_RECORD_MISC_COMM_EXEC) processes_.erase(comm->pid);
        commands_[comm->tid] = std::string(record_text(comm));
      }
      break;
    case PERF_RECORD_MMAP:
      if (const auto* mmap = record_as<MmapRecord>(&header)) {
        Mapping mapping{mmap->addr, mmap->len, mmap->pgoff, std::string(record_text(mmap))};
        if ((header.misc & PERF_RECORD_MISC_CPUMODE_MASK) == PERF_RECORD_MISC_KERNEL)
          kernel_.push_back(std::move(mapping));
        else
          own_mappings(mmap->pid).push_back(std::move(mapping));
      }
      break;
    case PERF_RECORD_MMAP2:
      if (const auto* mmap = record_as<Mmap2Record>(&header))
        own_mappings(mmap->pid).push_back({mmap->addr, mmap->len, mmap->pgoff, std::string(record_text(mmap))});
      break;
    case PERF_RECORD_FORK:
      if (const auto* fork = record_as<TaskRecord>(&header)) {
        if (fork->pid != fork->ppid) {  // a new process starts with its parent's mappings
          auto parent = processes_.find(fork->ppid);
          if (parent != processes_.end() && parent->second != nullptr)
            processes_[fork->pid] = std::make_shared<Space>(Space{{}, parent->second, parent->second->own.size()});
        }
        auto name = commands_.find(fork->ptid);
        if (name != commands_.end()) commands_[fork->tid] = name->second;
      }
      break;
    default:
      break;
  }
}

const std::string& AddressSpaces::command(std::uint32_t tid) const {
  static const std::string none;
  auto found = commands_.find(tid);
  return found == commands_.end() ? none : found->second;
}

PlacedAddress AddressSpaces::place(std::uint32_t pid, std::uint64_t address) const {
  auto in = [&](const std::vector<Mapping>& mappings) -> const Mapping* {
    for (auto it = mappings.rbegin(); it != mappings.rend(); ++it)  // the newest mapping wins
      if (address >= it->start && address - it->start < it->length) return &*it;
    return nullptr;
  };
  if (const Mapping* kernel = in(kernel_))  // perf shows kernel addresses whole
    return {"[kernel.kallsyms]", address, kernel->start, kernel->start + kernel->length, kernel->file_offset};
  auto process = processes_.find(pid);
  if (process != processes_.end()) {
    const Space* space = process->second.get();
    std::size_t visible = space->own.size();
    while (space != nullptr) {
      for (std::size_t i = visible; i-- > 0;) {  // the newest mapping wins
        const Mapping& mapping = space->own[i];
        if (address >= mapping.start && address - mapping.start < mapping.length)
          return {mapping.file, address - mapping.start + mapping.file_offset, mapping.start,
                  mapping.start + mapping.length, mapping.file_offset};
      }
      visible = space->inherited;
      space = space->parent.get();
    }
  }
  return {"[unknown]", address};
}

}  // namespace perfmon
