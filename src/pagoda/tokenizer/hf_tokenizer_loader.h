// Builds a tokenizer from a Hugging Face directory's tokenizer.json (HF
// `tokenizers`' serialization) and tokenizer_config.json (the special
// tokens). Kept apart from the tokenizer core, as the GGUF glue is.
//
// Two shapes of tokenizer.json map onto the core's two models:
//   - byte-level BPE (a ByteLevel pre-tokenizer): "gpt2", with the
//     pre-tokenizer family its regexes name (GPT-2's, SmolLM's digits then
//     GPT-2's, Llama 3's or Qwen2's Split);
//   - SentencePiece-style BPE with byte fallback (Llama 2, Mistral, Gemma,
//     Phi-3 as transformers converts them): "llama", spaces as U+2581 through
//     a Replace normalizer or a Metaspace pre-tokenizer, a space prefix where
//     a Prepend normalizer or Metaspace asks for one, and merge priorities
//     from the merges' order (the first merge the highest).
// Any other normalizer, pre-tokenizer, model or post-processor is refused by
// its type, never skipped. BOS/EOS are added where the TemplateProcessing
// post-processor puts them.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "pagoda/base/status.h"
#include "pagoda/tokenizer/tokenizer.h"
#include "pagoda/tokenizer/tokenizer_spec.h"

namespace pagoda::tokenizer {

StatusOr<TokenizerSpec> TokenizerSpecFromHf(const std::string& directory);
// The same from the two files' text (tokenizer_config.json's may be empty).
StatusOr<TokenizerSpec> TokenizerSpecFromHfJson(std::string_view tokenizer_json, std::string_view config_json);
StatusOr<std::unique_ptr<Tokenizer>> LoadTokenizerFromHf(const std::string& directory);

// The model's chat template as transformers finds it: chat_template.jinja,
// else tokenizer_config.json's "chat_template" (a string, or a list of
// named templates of which "default" is the one). nullopt when neither has one.
StatusOr<std::optional<std::string>> ChatTemplateFromHf(const std::string& directory);

}  // namespace pagoda::tokenizer
