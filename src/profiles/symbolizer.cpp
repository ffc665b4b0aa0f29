// SPDX-License-Identifier: Apache-2.0
#include "perfmon/symbolizer.hpp"

#include "kernel/records.hpp"
#include "profiles/dwarf_unwinder.hpp"

#include <cinttypes>
#include <cstdio>

namespace perfmon {

Symbolizer::Symbolizer(std::string debug_root) : symbols_(std::make_shared<SymbolTables>(std::move(debug_root))) {}
Symbolizer::Symbolizer(std::shared_ptr<SymbolTables> symbols) : symbols_(std::move(symbols)) {}
Symbolizer::~Symbolizer() = default;

void Symbolizer::record(const perf_event_header& header) {
  spaces_.record(header);
  // A process that execs, or a new process that takes a pid, maps other files: the unwinder's
  // session of that pid would place them where the old ones were.
  if (!unwinder_) return;
  if (header.type == PERF_RECORD_COMM && (header.misc & PERF_RECORD_MISC_COMM_EXEC))
    if (const auto* comm = kernel::record_as<kernel::CommRecord>(&header)) unwinder_->forget(comm->pid);
  if (header.type == PERF_RECORD_FORK)
    if (const auto* fork = kernel::record_as<kernel::TaskRecord>(&header); fork && fork->pid != fork->ppid)
      unwinder_->forget(fork->pid);
}

bool Symbolizer::unwind_user_stacks(std::size_t event, std::uint64_t sample_regs_user) {
  if (!analysis::DwarfUnwinder::available()) return false;
  if (!unwinder_) unwinder_ = std::make_unique<analysis::DwarfUnwinder>(symbols_->debug_root());
  if (unwind_masks_.size() <= event) unwind_masks_.resize(event + 1);
  unwind_masks_[event] = sample_regs_user;
  return true;
}

std::span<const std::uint64_t> Symbolizer::callchain(std::size_t event, const Sample& sample) {
  if (event >= unwind_masks_.size() || unwind_masks_[event] == 0 || sample.user_stack.empty()) return sample.callchain;
  // The kernel's part as recorded (with exclude_callchain_user it has no user part), then the user
  // frames unwound.
  unwound_.clear();
  for (std::uint64_t word : sample.callchain) {
    if (word == PERF_CONTEXT_USER) break;
    unwound_.push_back(word);
  }
  unwound_.push_back(PERF_CONTEXT_USER);
  const analysis::DwarfUnwinder::Locate locate = [this](std::uint32_t pid, std::uint64_t address, std::string& path,
                                                        std::uint64_t& base) {
    const PlacedAddress placed = spaces_.place(pid, address);
    if (placed.file.empty() || placed.file.front() != '/') return false;
    path = placed.file;
    base = address - placed.offset;
    return true;
  };
  if (unwinder_->unwind(sample, unwind_masks_[event], locate, unwound_) == 0) return sample.callchain;
  return unwound_;
}

NamedAddress Symbolizer::name(std::uint32_t pid, std::uint64_t address, bool kernel) {
  NamedAddress named;
  named.place = spaces_.place(pid, address);
  const bool in_kernel = named.place.file == "[kernel.kallsyms]";
  named.kernel = kernel || in_kernel;
  if (in_kernel)
    named.function = symbols_->function_in_kernel(address, named.into);
  else if ((!named.place.file.empty() && named.place.file.front() == '/') || named.place.file == "[vdso]")
    named.function = symbols_->function_in_file(named.place.file, named.place.offset, named.into);
  return named;
}

const SourcePlace* Symbolizer::source(const NamedAddress& named) {
  if (named.place.file.empty() || named.place.file.front() != '/') return nullptr;
  return symbols_->source_in_file(named.place.file, named.place.offset);
}

std::string source_line_text(const NamedAddress& named, const SourcePlace* place) {
  // An address inside a compilation unit that no line describes (an assembly label such as ld.so's
  // _start) is ":0" to perf: addr2line answers it with an empty file name and line 0.
  if (place != nullptr) return place->file.substr(place->file.rfind('/') + 1) + ":" + std::to_string(place->line);
  if (named.function != nullptr) return std::string(*named.function) + "+" + std::to_string(named.into);
  char offset[24];
  std::snprintf(offset, sizeof offset, "[%" PRIx64 "]", named.place.offset);
  return dso_short_name(named.place.file) + offset;
}

}  // namespace perfmon
