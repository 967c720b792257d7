// Splits text into pre-tokens (the "words" BPE merges within) with the
// regular expressions llama.cpp names by `tokenizer.ggml.pre`.
//
// A pre-tokenizer is a sequence of regexes; each one splits every piece the
// previous one produced, keeping both matches and the text between them as
// pieces (Hugging Face's Split with behavior "Isolated"). Supported names:
//   "gpt2"      GPT-2's regex.
//   "smollm"    each \p{N} on its own, then GPT-2's regex (HF: Digits with
//               individual_digits, then ByteLevel).
//   "llama-bpe" Llama 3's regex (alias "llama3"); BPE skips the merges for
//               pre-tokens that are whole vocabulary entries.
//   "qwen2"     Llama 3's with single digits (aliases "deepseek-r1-qwen",
//               "stablelm2").
//   "tekken"    Mistral's: words split at case changes; ignores merges.
//   "gpt-4o"    GPT-4o's (alias "llama4"): as Tekken, with contractions and
//               digits in threes.
//   "deepseek-llm"  DeepSeek LLM's sequence of six splits.
//   "deepseek-v3"   DeepSeek V3's (and R1's) sequence of three splits.
// Every regex's general categories (\p{L}, \p{S}, ...) follow Unicode 16.0,
// as the reference tokenizers' Oniguruma does, rather than PCRE2's older
// version (unicode_classes.h).
//
// Input that is not valid UTF-8 is accepted: ill-formed bytes never match a
// regex, so each run of them becomes a piece of its own.
#pragma once

#include <memory>
#include <string_view>
#include <vector>

#include "pagoda/base/status.h"

namespace pagoda::tokenizer {

class PreTokenizer {
 public:
  // UNIMPLEMENTED for names not listed above.
  static StatusOr<std::unique_ptr<PreTokenizer>> Create(std::string_view name);
  ~PreTokenizer();
  PreTokenizer(const PreTokenizer&) = delete;
  PreTokenizer& operator=(const PreTokenizer&) = delete;

  // Appends the pieces of `text`, in order, as views into `text`; together
  // they cover it exactly. Safe to call from several threads at once.
  void Split(std::string_view text, std::vector<std::string_view>* pieces) const;

  // Whether BPE should emit a pre-token that is itself a vocabulary entry
  // without merging (HF BPE's ignore_merges).
  bool ignore_merges() const { return ignore_merges_; }

 private:
  class Regex;
  PreTokenizer(std::vector<std::unique_ptr<Regex>> regexes, bool ignore_merges);

  std::vector<std::unique_ptr<Regex>> regexes_;
  bool ignore_merges_;
};

}  // namespace pagoda::tokenizer
