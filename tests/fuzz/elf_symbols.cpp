// SPDX-License-Identifier: Apache-2.0
// ELF files as perfmon script reads every file a recording mapped: segments, function symbols and
// PLT stubs, then addresses looked up in them.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "profiles/symbol_table.hpp"

namespace {
volatile std::uint64_t sink;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  perfmon::SymbolTables::Table table;
  perfmon::read_elf_symbols(std::string_view(reinterpret_cast<const char*>(data), size), table);
  for (const auto& segment : table.segments)
    if (const auto* function = table.at(segment.address + segment.file_size / 2)) sink = function->name.size();
  for (const auto& function : table.functions)
    if (const auto* found = table.at(function.start)) sink = found->start;
  for (const auto& stub : table.plt_stubs)
    if (const auto* found = table.at(stub.start + stub.size / 2)) sink = found->name.size();
  return 0;
}
