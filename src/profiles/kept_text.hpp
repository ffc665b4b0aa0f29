// SPDX-License-Identifier: Apache-2.0
// Text kept in blocks that never move, for views that last as long as their keeper: an allocation
// per 64 KiB of text rather than one per string, and none to free one by one.
#pragma once

#include <algorithm>
#include <cstring>
#include <memory>
#include <string_view>
#include <vector>

namespace perfmon::analysis {

class KeptText {
 public:
  std::string_view keep(std::string_view text) {
    if (text.size() > left_) {
      const std::size_t size = std::max(kBlock, text.size());
      blocks_.push_back(std::make_unique_for_overwrite<char[]>(size));
      next_ = blocks_.back().get();
      left_ = size;
    }
    if (!text.empty()) std::memcpy(next_, text.data(), text.size());
    const std::string_view kept(next_, text.size());
    next_ += text.size();
    left_ -= text.size();
    return kept;
  }
  // Takes another keeper's blocks: what views them stays valid as long as this one.
  void take(KeptText&& other) {
    for (auto& block : other.blocks_) blocks_.push_back(std::move(block));
    other = KeptText();
  }

 private:
  static constexpr std::size_t kBlock = 64 << 10;
  std::vector<std::unique_ptr<char[]>> blocks_;
  char* next_ = nullptr;
  std::size_t left_ = 0;
};

}  // namespace perfmon::analysis
