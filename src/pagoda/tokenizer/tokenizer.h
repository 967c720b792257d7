// The tokenizer of a GGUF model, built from a TokenizerSpec. Two models:
//
// "gpt2", byte-level BPE (SmolLM2, Llama 3, ...), matching Hugging Face
// `tokenizers`. Added tokens are cut out of the text first (leftmost, then
// longest match); every other run is pre-tokenized with the regexes named by
// spec.pre and each piece is BPE-merged from its bytes. Bytes the vocabulary
// has no token for are dropped (bpe_model.h). Text that is not valid UTF-8 is
// still encoded: ill-formed bytes never join a pre-token with valid text, and
// each run of them is merged from its raw bytes (Hugging Face takes Python
// str, so it has no such case). A token's piece is its byte-level decoding
// when all of its characters are in the byte mapping, else its text as is.
//
// "llama", SentencePiece BPE with byte fallback (Llama 2, Mistral, Gemma),
// matching llama.cpp and Hugging Face's legacy Llama tokenizer. Added tokens
// are cut out as above; in each other run spaces become U+2581, and with
// spec.add_space_prefix a run at the start or right after an added token
// gets one more in front; then it is merged by score (spm_model.h). A
// token's piece is its text with U+2581 as spaces, or a byte token's byte
// (spm_text.h); decoding drops the first space of the text when
// add_space_prefix is set.
//
// Decoding either: token pieces are concatenated as bytes and ill-formed
// UTF-8 is replaced by U+FFFD per maximal subpart, as Hugging Face's
// ByteLevel decoder does (and as a UTF-8 decoder does with llama.cpp's
// bytes; Hugging Face's ByteFallback decoder instead turns every byte token
// of an ill-formed run into U+FFFD).
//
// A Tokenizer is immutable; all methods are safe to call concurrently.
#pragma once

#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "pagoda/base/status.h"
#include "pagoda/tokenizer/added_tokens.h"
#include "pagoda/tokenizer/bpe_model.h"
#include "pagoda/tokenizer/pre_tokenizer.h"
#include "pagoda/tokenizer/spm_model.h"
#include "pagoda/tokenizer/tokenizer_spec.h"

namespace pagoda::tokenizer {

struct EncodeOptions {
  // Add BOS/EOS around the text where the spec's add_bos/add_eos ask for it.
  bool add_special = true;
  // Recognize control tokens (<|im_start|>, ...) written in the text. When
  // false they are encoded as ordinary text; user-defined added tokens are
  // recognized either way (HF's split_special_tokens, llama.cpp's
  // parse_special).
  bool parse_special = true;
};

class Tokenizer {
 public:
  // INVALID_ARGUMENT for an inconsistent spec, UNIMPLEMENTED for a model
  // other than "gpt2" and "llama" or an unsupported pre-tokenizer.
  static StatusOr<std::unique_ptr<Tokenizer>> Create(const TokenizerSpec& spec);

  std::vector<TokenId> Encode(std::string_view text, const EncodeOptions& options = {}) const;

  // OUT_OF_RANGE if an id is not in the vocabulary.
  StatusOr<std::string> Decode(std::span<const TokenId> ids, bool skip_special_tokens = false) const;

  // The bytes a token decodes to; possibly part of a UTF-8 sequence.
  StatusOr<std::string_view> TokenToPiece(TokenId id) const;

  // Whether Decode drops the first space of the text (llama with
  // add_space_prefix), which streaming must do too.
  bool strips_leading_space() const { return space_prefix_; }

  int vocab_size() const { return static_cast<int>(tokens_.size()); }
  bool IsValidId(TokenId id) const { return id >= 0 && id < vocab_size(); }
  // Vocabulary text (the model's spelling) and type; `id` must be valid.
  const std::string& TokenText(TokenId id) const;
  TokenType GetTokenType(TokenId id) const;
  // Control (and unknown) tokens: what skip_special_tokens drops.
  bool IsSpecial(TokenId id) const;
  std::optional<TokenId> FindToken(std::string_view vocab_text) const;

  std::optional<TokenId> bos_id() const { return bos_id_; }
  std::optional<TokenId> eos_id() const { return eos_id_; }
  std::optional<TokenId> unk_id() const { return unk_id_; }
  std::optional<TokenId> pad_id() const { return pad_id_; }
  bool add_bos() const { return add_bos_; }
  bool add_eos() const { return add_eos_; }

 private:
  // Exactly one of `bpe` (with `pre`) and `spm` is set.
  Tokenizer(const TokenizerSpec& spec, std::unordered_map<std::string, TokenId> vocab, std::optional<BpeModel> bpe,
            std::unique_ptr<PreTokenizer> pre, std::optional<SpmModel> spm, std::vector<std::string> pieces,
            std::vector<AddedTokenMatcher::Entry> added);
  void EncodeBpeText(std::string_view text, BpeModel::Scratch* scratch, std::vector<std::string_view>* words,
                     std::vector<TokenId>* out) const;
  void EncodeSpmSegments(const std::vector<AddedTokenMatcher::Segment>& segments, std::vector<TokenId>* out) const;

  std::vector<std::string> tokens_;
  std::vector<TokenType> types_;
  std::vector<std::string> pieces_;
  std::unordered_map<std::string, TokenId> vocab_;
  std::optional<BpeModel> bpe_;
  std::unique_ptr<PreTokenizer> pre_;
  std::optional<SpmModel> spm_;
  bool space_prefix_;  // llama with add_space_prefix
  SpacePrefixRule space_prefix_rule_;
  bool normalize_nfc_;
  bool ignore_merges_;  // gpt2
  AddedTokenMatcher added_;
  std::optional<TokenId> bos_id_, eos_id_, unk_id_, pad_id_;
  bool add_bos_, add_eos_;
};

}  // namespace pagoda::tokenizer
