// SPDX-License-Identifier: Apache-2.0
// A vector that grows a chunk at a time instead of doubling: its elements never move, and it holds
// what it has plus at most one chunk. A doubling vector holds up to twice what it needs, and three
// times while it moves them: for the per-address tables of a large profile, that was its peak. A
// chunk's storage is left as allocated until an element is put there, so that a small profile
// touches (and the kernel zeroes) only the pages it fills, not a whole chunk's.
#pragma once

#include <cstddef>
#include <memory>
#include <new>
#include <type_traits>
#include <vector>

namespace perfmon::analysis {

template <class T, std::size_t kChunk = 4096>
class ChunkedVector {
  static_assert(std::is_trivially_destructible_v<T>, "its elements are never destroyed one by one");

 public:
  T& operator[](std::size_t index) noexcept { return at(index); }
  const T& operator[](std::size_t index) const noexcept { return const_cast<ChunkedVector&>(*this).at(index); }
  std::size_t size() const noexcept { return size_; }

  void push_back(const T& value) {
    if (size_ == chunks_.size() * kChunk) chunks_.push_back(std::make_unique_for_overwrite<Chunk>());
    std::construct_at(&slot(size_), value);
    ++size_;
  }

 private:
  struct Chunk {
    alignas(T) std::byte bytes[sizeof(T) * kChunk];
  };
  T& slot(std::size_t index) noexcept { return reinterpret_cast<T*>(chunks_[index / kChunk]->bytes)[index % kChunk]; }
  T& at(std::size_t index) noexcept { return *std::launder(&slot(index)); }

  std::vector<std::unique_ptr<Chunk>> chunks_;
  std::size_t size_ = 0;
};

}  // namespace perfmon::analysis
