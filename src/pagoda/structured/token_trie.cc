#include "pagoda/structured/token_trie.h"

#include <algorithm>
#include <bit>
#include <numeric>

#include "pagoda/base/check.h"

namespace pagoda::structured {

TokenTrie::TokenTrie(const std::vector<std::string>& token_bytes)
    : vocab_size_(static_cast<int32_t>(token_bytes.size())) {
  std::vector<int32_t> order(token_bytes.size());
  std::iota(order.begin(), order.end(), 0);
  std::erase_if(order, [&](int32_t id) { return token_bytes[id].empty(); });
  std::stable_sort(order.begin(), order.end(),
                   [&](int32_t a, int32_t b) { return token_bytes[a] < token_bytes[b]; });
  std::vector<int32_t> open;  // node index at each depth - 1 of the current path
  const std::string* previous = nullptr;
  for (const int32_t id : order) {
    const std::string& bytes = token_bytes[id];
    PAGODA_CHECK(bytes.size() <= UINT16_MAX);
    size_t common = 0;
    if (previous != nullptr) {
      while (common < bytes.size() && common < previous->size() && bytes[common] == (*previous)[common]) ++common;
    }
    for (size_t depth = open.size(); depth > common; --depth) {
      nodes_[open[depth - 1]].subtree_end = static_cast<int32_t>(nodes_.size());
    }
    open.resize(common);
    for (size_t depth = common; depth < bytes.size(); ++depth) {
      open.push_back(static_cast<int32_t>(nodes_.size()));
      nodes_.push_back(Node{static_cast<uint8_t>(bytes[depth]), static_cast<uint16_t>(depth + 1), 0,
                            static_cast<int32_t>(token_ids_.size()), 0});
    }
    Node& last = nodes_[open.back()];
    if (last.token_count == 0) last.first_token = static_cast<int32_t>(token_ids_.size());
    token_ids_.push_back(id);
    ++last.token_count;
    max_depth_ = std::max(max_depth_, static_cast<int>(bytes.size()));
    previous = &bytes;
  }
  for (const int32_t node : open) nodes_[node].subtree_end = static_cast<int32_t>(nodes_.size());
}

int32_t TokenBitmask::Count() const {
  int32_t count = 0;
  for (const uint64_t word : words_) count += std::popcount(word);
  return count;
}

}  // namespace pagoda::structured
