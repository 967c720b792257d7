// The fields of a completions or chat request about the request itself
// rather than its sampling, all vLLM's: request_id (the response's id),
// return_token_ids and return_tokens_as_token_ids (what the response
// carries), and truncate_prompt_tokens (how much of the prompt the model
// sees).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "pagoda/server/api_error.h"
#include "pagoda/server/field_reader.h"
#include "pagoda/server/sampling_request.h"

namespace pagoda::server {

struct RequestOptions {
  // "<prefix>-<request_id>" as vLLM spells it, or a random id when the
  // request has none (or ""). The engine requests are named after it, so a
  // request_id still running refuses a second request with the same one.
  std::string id;
  bool return_token_ids = false;  // prompt_token_ids and each choice's token_ids
  bool tokens_as_ids = false;     // logprobs name tokens "token_id:<id>"
  std::optional<int64_t> truncate_prompt_tokens;  // the last k prompt tokens; -1: as many as fit
};

// `id_prefix` is "cmpl" or "chatcmpl". Errors go to the reader; the id is
// set even then, for the log.
RequestOptions ReadRequestOptions(FieldReader& r, std::string_view id_prefix);

// vLLM's truncation: keeps the last k tokens of the prompt, where k = -1
// means what leaves room for `max_tokens` (none asked: the whole context).
// A k past that room, or one that leaves nothing, is a 400 naming the field.
std::optional<ApiError> TruncatePrompt(std::vector<int32_t>& token_ids, const RequestOptions& options,
                                       std::optional<int64_t> max_tokens, const ServingLimits& limits);

}  // namespace pagoda::server
