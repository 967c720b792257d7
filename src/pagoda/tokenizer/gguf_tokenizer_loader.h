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

// Reads tokenizer.ggml.{model, pre, tokens, token_type, merges,
// bos/eos/unknown/padding_token_id, add_bos_token, add_eos_token}. Absent
// optional keys mean: no such special token, all types normal, flags false.
StatusOr<TokenizerSpec> TokenizerSpecFromGguf(const gguf::GgufFile& file);

StatusOr<std::unique_ptr<Tokenizer>> LoadTokenizerFromGguf(const gguf::GgufFile& file);

}  // namespace pagoda::tokenizer
