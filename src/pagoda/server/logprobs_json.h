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

// A position's token as logprobs name it: its text, or with `as_ids`
// (vLLM's return_tokens_as_token_ids) "token_id:<id>", which names tokens
// whose text is not valid UTF-8 on its own.
std::string TokenName(int32_t token_id, const std::string& text, bool as_ids);

// The token at a position nothing predicts (the first prompt token).
struct UnsetToken {
  int32_t id = -1;
  std::string text;
};

// Appends positions to a completions logprobs object (created if null).
// A position may be unset: `unset` then names its token. `text_offset` is
// where the first position's text starts in the choice's text; it is
// advanced by each token's text, however tokens are named.
void AppendCompletionLogprobs(nlohmann::json& logprobs, std::span<const std::optional<PositionLogprobs>> positions,
                              const UnsetToken& unset, size_t& text_offset, bool as_ids = false);

// vLLM's prompt_logprobs: per prompt position null (the first) or
// {"token id": {"logprob", "rank", "decoded_token"}}.
nlohmann::json PromptLogprobsJson(std::span<const std::optional<PositionLogprobs>> positions);

// Chat's {"content": [...]} for positions, each with its `num_top` most
// likely tokens.
nlohmann::json ChatLogprobs(std::span<const PositionLogprobs> positions, int32_t num_top, bool as_ids = false);

}  // namespace pagoda::server
