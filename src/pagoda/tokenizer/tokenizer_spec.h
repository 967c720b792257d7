// Everything needed to build a Tokenizer, independent of where it came from
// (a GGUF file, a test, a converter).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace pagoda::tokenizer {

using TokenId = int32_t;

// Values are GGUF's tokenizer.ggml.token_type (llama.cpp's llama_token_type).
enum class TokenType : int32_t {
  kUndefined = 0,
  kNormal = 1,
  kUnknown = 2,
  kControl = 3,      // special tokens: BOS, EOS, chat markers; skipped by skip_special_tokens
  kUserDefined = 4,  // added tokens that are not special: always matched as a whole
  kUnused = 5,
  kByte = 6,
};

// Where a "llama" tokenizer with add_space_prefix puts its space prefix.
enum class SpacePrefixRule {
  // The first run of text and every run after an added token, always
  // (llama.cpp; HF's legacy Prepend normalizer).
  kEveryRun,
  // Only a run at the very start of the text, and only when it does not
  // already start with a space (HF's Metaspace, prepend_scheme "first").
  kTextStartUnlessSpace,
  // Every run, unless it already starts with a space (Metaspace "always").
  kEveryRunUnlessSpace,
};

struct TokenizerSpec {
  // tokenizer.ggml.model: "gpt2" (byte-level BPE) or "llama" (SentencePiece
  // BPE with byte fallback).
  std::string model = "gpt2";
  // tokenizer.ggml.pre: which pre-tokenizer regexes to use (pre_tokenizer.h);
  // gpt2 only.
  std::string pre;
  std::vector<std::string> tokens;     // vocabulary text: byte-level (gpt2) or with U+2581 spaces (llama)
  std::vector<TokenType> token_types;  // empty means all kNormal
  std::vector<std::string> merges;     // gpt2: "left right", highest priority first
  // gpt2: emit a pre-token that is a whole vocabulary entry without merging
  // (HF BPE's ignore_merges); unset: the pre-tokenizer family's (GGUF names
  // only the family).
  std::optional<bool> ignore_merges;
  std::vector<float> scores;           // llama: merge priority, highest first; empty means all 0
  // llama: encode each text run at the start or after an added token with a
  // leading space, and drop the first space when decoding.
  bool add_space_prefix = false;
  SpacePrefixRule space_prefix_rule = SpacePrefixRule::kEveryRun;
  // Unicode normalization of the text between added tokens before
  // pre-tokenization: none, or NFC (HF's NFC normalizer, as Qwen2's has).
  bool normalize_nfc = false;
  std::optional<TokenId> bos_id;
  std::optional<TokenId> eos_id;
  std::optional<TokenId> unk_id;
  std::optional<TokenId> pad_id;
  bool add_bos = false;
  bool add_eos = false;
  // Added tokens that take the whitespace before (lstrip) or after (rstrip)
  // them into their match, as Hugging Face's AddedToken flags say: that
  // whitespace is not tokenized (Phi-3's "<|user|>\n").
  std::vector<TokenId> lstrip_ids;
  std::vector<TokenId> rstrip_ids;
};

}  // namespace pagoda::tokenizer
