// The vocabulary as a trie of token bytes, flattened in pre-order, so that a
// token mask walks each shared prefix once and skips a whole subtree when
// its prefix is refused.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace pagoda::structured {

class TokenTrie {
 public:
  struct Node {
    uint8_t byte;          // the last byte of this node's prefix
    uint16_t depth;        // the prefix length, >= 1
    int32_t subtree_end;   // the index after this node's last descendant
    int32_t first_token;   // tokens ending here: token_ids()[first_token ..
    int32_t token_count;   //   .. first_token + token_count)
  };

  // token_bytes[id] is token id's text as bytes; an empty string makes the
  // token never allowed (special and control tokens).
  explicit TokenTrie(const std::vector<std::string>& token_bytes);

  int32_t vocab_size() const { return vocab_size_; }
  const std::vector<Node>& nodes() const { return nodes_; }
  const std::vector<int32_t>& token_ids() const { return token_ids_; }
  int max_depth() const { return max_depth_; }

 private:
  int32_t vocab_size_;
  std::vector<Node> nodes_;
  std::vector<int32_t> token_ids_;
  int max_depth_ = 0;
};

// One bit per token id.
class TokenBitmask {
 public:
  explicit TokenBitmask(int32_t vocab_size) : size_(vocab_size), words_((vocab_size + 63) / 64, 0) {}

  int32_t size() const { return size_; }
  void Clear() { std::fill(words_.begin(), words_.end(), 0); }
  void Set(int32_t id) { words_[id >> 6] |= uint64_t{1} << (id & 63); }
  void Reset(int32_t id) { words_[id >> 6] &= ~(uint64_t{1} << (id & 63)); }
  bool Test(int32_t id) const { return (words_[id >> 6] >> (id & 63)) & 1; }
  int32_t Count() const;
  const std::vector<uint64_t>& words() const { return words_; }

  friend bool operator==(const TokenBitmask&, const TokenBitmask&) = default;

 private:
  int32_t size_;
  std::vector<uint64_t> words_;
};

}  // namespace pagoda::structured
