// SentencePiece BPE merging (GGUF tokenizer.ggml.model = "llama"), as
// llama.cpp's llm_tokenizer_spm and SentencePiece's bpe_model.cc do it.
//
// The text (spaces already escaped as U+2581) starts as one symbol per UTF-8
// character. The adjacent pair whose concatenation is a vocabulary token with
// the highest score merges first, the leftmost among equal scores, until no
// pair forms a token. Each final symbol is then emitted as its token; an
// unused token (which SentencePiece lets merging pass through but never
// emits) is split back into the two symbols it was merged from; a character
// the vocabulary lacks becomes its bytes' <0xXX> tokens (byte fallback), or
// the unknown token for a byte without one.
//
// Bytes that are not valid UTF-8 are grouped as llama.cpp groups them: the
// lead byte's high bits give the length, clamped to the end of the text.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "pagoda/base/status.h"
#include "pagoda/tokenizer/tokenizer_spec.h"

namespace pagoda::tokenizer {

class SpmModel {
 public:
  // Reusable buffers, so that encoding many texts allocates once. One per
  // thread; an SpmModel itself is immutable and shared.
  struct Scratch {
    struct Symbol {
      uint32_t start;
      uint32_t size;  // bytes; 0 once merged into its left neighbour
      int prev;
      int next;
    };
    struct Candidate {
      float score;
      int left;
      int right;
      uint32_t size;  // both symbols' sizes when queued: tells stale entries apart
      bool unused;    // the pair makes an unused token
    };
    std::vector<Symbol> symbols;
    std::vector<Candidate> heap;
    // (start, size) of each merged unused token -> its left part's size.
    std::unordered_map<uint64_t, uint32_t> unused_splits;
  };

  // `scores` may be empty (all 0) or one per token; `types` likewise (all
  // normal). A text listed twice keeps its first id.
  static StatusOr<SpmModel> Create(const std::vector<std::string>& tokens, const std::vector<TokenType>& types,
                                   const std::vector<float>& scores, std::optional<TokenId> unk_id);

  // Appends the ids of `text`, whose spaces are already U+2581.
  void Encode(std::string_view text, Scratch* scratch, std::vector<TokenId>* out) const;

 private:
  struct Hash {
    using is_transparent = void;
    size_t operator()(std::string_view text) const { return std::hash<std::string_view>{}(text); }
  };
  struct Entry {
    TokenId id;
    float score;
    bool unused;
  };

  const Entry* Find(std::string_view text) const;
  void PushCandidate(std::string_view text, int left, Scratch* scratch) const;
  void Resegment(std::string_view text, uint32_t start, uint32_t size, const Scratch& scratch,
                 std::vector<TokenId>* out) const;

  std::unordered_map<std::string, Entry, Hash, std::equal_to<>> vocab_;
  TokenId byte_ids_[256] = {};  // <0xXX> tokens; unk (or -1: dropped) where missing
};

}  // namespace pagoda::tokenizer
