// The completions endpoint's `prompt`: a string, a list of strings, a list
// of token ids, or a list of lists of token ids, each becoming one prompt.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "pagoda/server/field_reader.h"
#include "pagoda/tokenizer/tokenizer.h"

namespace pagoda::server {

struct PromptInput {
  std::vector<int32_t> token_ids;
  std::string text;  // as given, or the ids decoded (for echo)
};

// Tokenizes text prompts (with BOS/EOS per the model when add_special_tokens)
// and checks token ids against the vocabulary; errors name `prompt`.
std::optional<std::vector<PromptInput>> ReadPrompts(FieldReader& r, const tokenizer::Tokenizer& tokenizer,
                                                    bool add_special_tokens);

}  // namespace pagoda::server
