// SPDX-License-Identifier: Apache-2.0
#include "profiles/recorded_processes.hpp"

#include <string>

#include "kernel/records.hpp"

namespace perfmon {

namespace analysis {

void RecordedProcesses::record(const perf_event_header& header) {
  using namespace kernel;
  if (header.type != PERF_RECORD_MMAP && header.type != PERF_RECORD_MMAP2 && header.type != PERF_RECORD_COMM &&
      header.type != PERF_RECORD_FORK)
    return;
  // Each of these begins with the pid whose addresses it changes.
  const auto* task = record_as<CommRecord>(&header);
  if (task == nullptr) return;
  auto [process, added] = process_of.try_emplace(task->pid, static_cast<std::uint32_t>(generations.size()));
  if (added) generations.push_back(0);
  ++generations[*process];
  // FORK's tid field follows where COMM's does not.
  forget(task->tid);
  if (const auto* fork = record_as<TaskRecord>(&header); fork && header.type == PERF_RECORD_FORK) forget(fork->tid);
  if (header.type == PERF_RECORD_MMAP && (header.misc & PERF_RECORD_MISC_CPUMODE_MASK) == PERF_RECORD_MISC_KERNEL)
    ++kernel_generation;
}

void RecordedProcesses::forget(std::uint32_t tid) {
  if (const std::uint32_t* thread = thread_of.find(tid)) commands[*thread] = kUnknown;
}

std::uint64_t RecordedProcesses::generation_of(std::uint32_t pid) const {
  const std::uint32_t* process = process_of.find(pid);
  return (process != nullptr ? generations[*process] : 0) + kernel_generation;
}

NameId RecordedProcesses::command_of(std::uint32_t tid, const AddressSpaces& spaces, NameTable& names) {
  auto [thread, added] = thread_of.try_emplace(tid, static_cast<std::uint32_t>(commands.size()));
  if (added) commands.push_back(kUnknown);
  NameId& command = commands[*thread];
  if (command == kUnknown) {
    const std::string& name = spaces.command(tid);
    command = names.intern(name.empty() ? ":" + std::to_string(tid) : name);
  }
  return command;
}

}  // namespace analysis

}  // namespace perfmon
