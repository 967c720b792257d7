// Builds a tokenizer from a GGUF file's tokenizer.ggml.* metadata. Kept apart
// from the tokenizer core (its own library, pagoda_tokenizer_gguf) so the
// core does not depend on the file format.
#pragma once

#include <memory>

#include "pagoda/base/status.h"
#include "pagoda/formats/gguf/gguf_file.h"
#include "pagoda/tokenizer/tokenizer.h"
#include "pagoda/tokenizer/tokenizer_spec.h"

namespace pagoda::tokenizer {

// Reads tokenizer.ggml.{model, pre, tokens, token_type, merges, scores,
// bos/eos/unknown/padding_token_id, add_bos_token, add_eos_token,
// add_space_prefix}. Absent optional keys mean: no such special token, all
// types normal, all scores 0, and llama.cpp's defaults for the flags (all
// false, but add_bos_token and add_space_prefix true for model "llama").
StatusOr<TokenizerSpec> TokenizerSpecFromGguf(const gguf::GgufFile& file);

StatusOr<std::unique_ptr<Tokenizer>> LoadTokenizerFromGguf(const gguf::GgufFile& file);

}  // namespace pagoda::tokenizer
