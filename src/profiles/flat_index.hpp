// SPDX-License-Identifier: Apache-2.0
// An index from keys to 32-bit numbers in one array (open addressing, linear probing): the tables
// a profile looks up once or more per sample. A std::unordered_map allocates a node per key and
// frees them one by one at the end; this grows by doubling and goes in one free.
#pragma once

#include <cstdint>
#include <functional>
#include <utility>
#include <vector>

namespace perfmon::analysis {

template <class Key, class Hash, class Equal = std::equal_to<Key>>
class FlatIndex {
 public:
  static constexpr std::uint32_t kAbsent = 0xffffffff;  // not a value: marks a free slot

  // The value of `key`, and false; or, where the key has none, `value` stored and true. The
  // pointer is valid until the next insertion.
  std::pair<std::uint32_t*, bool> try_emplace(const Key& key, std::uint32_t value) {
    if ((used_ + 1) * 4 > slots_.size() * 3) grow();
    const std::size_t hash = Hash{}(key);
    for (std::size_t at = hash & mask_;; at = (at + 1) & mask_) {
      Slot& slot = slots_[at];
      if (slot.value == kAbsent) {
        slot = {key, value, static_cast<std::uint32_t>(hash)};
        ++used_;
        return {&slot.value, true};
      }
      if (slot.hash == static_cast<std::uint32_t>(hash) && Equal{}(slot.key, key)) return {&slot.value, false};
    }
  }

  // The value of `key`, or nullptr.
  const std::uint32_t* find(const Key& key) const {
    if (used_ == 0) return nullptr;
    const std::size_t hash = Hash{}(key);
    for (std::size_t at = hash & mask_;; at = (at + 1) & mask_) {
      const Slot& slot = slots_[at];
      if (slot.value == kAbsent) return nullptr;
      if (slot.hash == static_cast<std::uint32_t>(hash) && Equal{}(slot.key, key)) return &slot.value;
    }
  }

 private:
  struct Slot {
    Key key{};
    std::uint32_t value = kAbsent;
    std::uint32_t hash = 0;  // the key's hash, low half: most mismatches are told without comparing keys
  };

  void grow() {
    std::vector<Slot> old(slots_.empty() ? 64 : slots_.size() * 2);
    old.swap(slots_);
    mask_ = slots_.size() - 1;
    for (const Slot& slot : old) {
      if (slot.value == kAbsent) continue;
      // The low half of the hash chooses the slot, so moving needs no hash computed again.
      std::size_t at = slot.hash & mask_;
      while (slots_[at].value != kAbsent) at = (at + 1) & mask_;
      slots_[at] = slot;
    }
  }

  std::vector<Slot> slots_;
  std::size_t mask_ = 0, used_ = 0;
};

// Mixes two words into a hash whose every bit depends on both (the low bits choose a slot).
inline std::size_t mix_words(std::uint64_t a, std::uint64_t b) noexcept {
  std::uint64_t h = a * 0x9e3779b97f4a7c15ULL ^ (b + 0x7f4a7c159e3779b9ULL + (a << 6) + (a >> 2));
  h ^= h >> 29;
  h *= 0xbf58476d1ce4e5b9ULL;
  return static_cast<std::size_t>(h ^ (h >> 32));
}

struct WordHash {
  std::size_t operator()(std::uint64_t word) const noexcept { return mix_words(word, 0); }
};

}  // namespace perfmon::analysis
