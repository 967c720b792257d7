// Logprobs in the two shapes OpenAI's API uses: the legacy completions
// object (parallel lists of tokens, logprobs, top-N dicts and text offsets)
// and chat's list of {token, logprob, bytes, top_logprobs} entries.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>

#include <nlohmann/json.hpp>

#include "pagoda/engine/request_output.h"

namespace pagoda::server {

// Appends positions to a completions logprobs object (created if null).
// A position may be unset (the first prompt token, which nothing predicts):
// `unset_token_text` then names its token. `text_offset` is where the first
// position's text starts in the choice's text; it is advanced.
void AppendCompletionLogprobs(nlohmann::json& logprobs, std::span<const std::optional<PositionLogprobs>> positions,
                              const std::string& unset_token_text, size_t& text_offset);

// vLLM's prompt_logprobs: per prompt position null (the first) or
// {"token id": {"logprob", "rank", "decoded_token"}}.
nlohmann::json PromptLogprobsJson(std::span<const std::optional<PositionLogprobs>> positions);

// Chat's {"content": [...]} for positions, each with its `num_top` most
// likely tokens.
nlohmann::json ChatLogprobs(std::span<const PositionLogprobs> positions, int32_t num_top);

}  // namespace pagoda::server
