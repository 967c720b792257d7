// A set of token ids over a fixed vocabulary that clears in O(1), so the
// sampler can mark tokens per row without clearing a vocab-sized array.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "pagoda/base/check.h"

namespace pagoda {

class TokenSet {
 public:
  explicit TokenSet(int32_t vocab_size) : stamp_(static_cast<size_t>(vocab_size), 0) {}

  void Clear() {
    if (++epoch_ == 0) {  // wrapped: old stamps could collide with new epochs
      std::fill(stamp_.begin(), stamp_.end(), 0u);
      epoch_ = 1;
    }
  }
  // True if `id` was not in the set yet.
  bool Insert(int32_t id) {
    PAGODA_CHECK(id >= 0 && static_cast<size_t>(id) < stamp_.size());
    if (stamp_[id] == epoch_) return false;
    stamp_[id] = epoch_;
    return true;
  }
  bool Contains(int32_t id) const { return stamp_[id] == epoch_; }

 private:
  std::vector<uint32_t> stamp_;
  uint32_t epoch_ = 1;
};

}  // namespace pagoda
