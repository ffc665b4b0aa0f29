// SPDX-License-Identifier: Apache-2.0
// What a profile's entries and a report's rows are told apart by: their command, file, function,
// source line and mode, as names' ids. (A row leaves the fields it does not sort by 0.)
#pragma once

#include <cstdint>

#include "profiles/flat_index.hpp"
#include "perfmon/name_id.hpp"

namespace perfmon::analysis {

struct EntryKey {
  NameId command = 0, dso = 0, symbol = 0, source = 0;
  bool kernel = false;
  bool operator==(const EntryKey&) const = default;
};

struct EntryKeyHash {
  std::size_t operator()(const EntryKey& key) const noexcept {
    return mix_words(std::uint64_t{key.command} << 32 | key.dso,
                     (std::uint64_t{key.symbol} << 32 | key.source) << 1 | key.kernel);
  }
};

}  // namespace perfmon::analysis
