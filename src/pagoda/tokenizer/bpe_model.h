// Byte-level BPE merging: turns one pre-token (raw bytes) into token ids by
// repeatedly merging the adjacent pair with the best (lowest) merge rank,
// leftmost first among equals, as Hugging Face's BPE model does.
//
// Some vocabularies leave out bytes their training data never had (SmolLM2
// lacks 21, among them control characters 0x04 and 0x06). Those bytes are
// dropped from the word before merging, as Hugging Face does for a BPE
// without unk_token (llama.cpp drops them too).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "pagoda/base/status.h"
#include "pagoda/tokenizer/tokenizer_spec.h"

namespace pagoda::tokenizer {

class BpeModel {
 public:
  // Reusable buffers, so that encoding many words allocates once. One per
  // thread; a BpeModel itself is immutable and shared.
  struct Scratch {
    struct Symbol {
      TokenId id;
      int prev;
      int next;
    };
    struct Candidate {
      uint32_t rank;
      int left;
      TokenId left_id;
      TokenId right_id;
      TokenId merged_id;
    };
    std::vector<Symbol> symbols;
    std::vector<Candidate> heap;
  };

  // `vocab` maps byte-level vocabulary text to ids. Fails if a merge names
  // text that is not in the vocabulary.
  static StatusOr<BpeModel> Create(const std::unordered_map<std::string, TokenId>& vocab,
                                   const std::vector<std::string>& merges);

  // Appends the ids of `word`; nothing if all its bytes are dropped.
  void Encode(std::string_view word, Scratch* scratch, std::vector<TokenId>* out) const;

 private:
  struct Merge {
    uint32_t rank;
    TokenId merged_id;
  };
  static uint64_t PairKey(TokenId left, TokenId right) {
    return (static_cast<uint64_t>(static_cast<uint32_t>(left)) << 32) | static_cast<uint32_t>(right);
  }
  void PushCandidate(int left, Scratch* scratch) const;

  TokenId byte_ids_[256] = {};  // -1: the byte has no token
  std::unordered_map<uint64_t, Merge> merges_;
};

}  // namespace pagoda::tokenizer
