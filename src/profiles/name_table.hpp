// SPDX-License-Identifier: Apache-2.0
// Names kept once each and known by a small number (NameId): a profile's commands, files and
// functions; a pprof profile's strings.
#pragma once

#include <cstdint>
#include <functional>
#include <string_view>
#include <vector>

#include "profiles/kept_text.hpp"
#include "perfmon/name_id.hpp"

namespace perfmon::analysis {

// Names kept once (analysis::KeptText). The index of them holds ids and hashes only (8 bytes a
// slot, where a view of the name as the key took 24): the name is found by its id.
class NameTable {
 public:
  NameId intern(std::string_view text) {
    if ((views_.size() + 1) * 4 > slots_.size() * 3) grow();
    const auto hash = static_cast<std::uint32_t>(std::hash<std::string_view>{}(text));
    std::size_t at = hash & mask_;
    for (; slots_[at] != kFree; at = (at + 1) & mask_) {
      const auto id = static_cast<NameId>(slots_[at]);
      if (slots_[at] >> 32 == hash && views_[id] == text) return id;
    }
    const auto id = static_cast<NameId>(views_.size());
    views_.push_back(text_.keep(text));
    slots_[at] = std::uint64_t{hash} << 32 | id;
    return id;
  }
  std::string_view operator[](NameId id) const noexcept { return views_[id]; }
  std::size_t size() const noexcept { return views_.size(); }

 private:
  static constexpr std::uint64_t kFree = ~std::uint64_t{0};

  void grow() {
    std::vector<std::uint64_t> old(slots_.empty() ? 64 : slots_.size() * 2, kFree);
    old.swap(slots_);
    mask_ = slots_.size() - 1;
    for (const std::uint64_t slot : old) {
      if (slot == kFree) continue;
      std::size_t at = (slot >> 32) & mask_;
      while (slots_[at] != kFree) at = (at + 1) & mask_;
      slots_[at] = slot;
    }
  }

  KeptText text_;
  std::vector<std::string_view> views_;
  std::vector<std::uint64_t> slots_;  // (hash << 32 | id), or kFree
  std::size_t mask_ = 0;
};

}  // namespace perfmon::analysis
