// SPDX-License-Identifier: Apache-2.0
// A vector that grows a chunk at a time instead of doubling: its elements never move, and it holds
// what it has plus at most one chunk. A doubling vector holds up to twice what it needs, and three
// times while it moves them: for the per-address tables of a large profile, that was its peak.
#pragma once

#include <cstddef>
#include <memory>
#include <vector>

namespace perfmon::analysis {

template <class T, std::size_t kChunk = 4096>
class ChunkedVector {
 public:
  T& operator[](std::size_t index) noexcept { return chunks_[index / kChunk][index % kChunk]; }
  const T& operator[](std::size_t index) const noexcept { return chunks_[index / kChunk][index % kChunk]; }
  std::size_t size() const noexcept { return size_; }

  void push_back(const T& value) {
    if (size_ == chunks_.size() * kChunk) chunks_.push_back(std::make_unique<T[]>(kChunk));
    (*this)[size_++] = value;
  }

 private:
  std::vector<std::unique_ptr<T[]>> chunks_;
  std::size_t size_ = 0;
};

}  // namespace perfmon::analysis
