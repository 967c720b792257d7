// The sampling fields the completions and chat endpoints share: OpenAI's
// (n, temperature, top_p, stop, seed, logit_bias, penalties, logprobs) and
// vLLM's extras (top_k, min_p, repetition_penalty, ignore_eos, min_tokens,
// stop_token_ids, cache_salt, ...), read into SamplingParams with vLLM's
// defaults.
#pragma once

#include <cstdint>
#include <optional>

#include <nlohmann/json.hpp>

#include "pagoda/request/generation_defaults.h"
#include "pagoda/request/sampling_params.h"
#include "pagoda/server/field_reader.h"

namespace pagoda::server {

struct ServingLimits {
  int64_t max_model_len = 0;
  int64_t vocab_size = 0;  // token ids in requests must be below it
  int32_t max_logprobs = 20;  // vLLM's --max-logprobs
  // The model's recommended values for fields a request leaves out, and a
  // cap on max_tokens (Engine::generation_defaults).
  GenerationDefaults defaults = {};
};

enum class Endpoint { kCompletions, kChat };

struct SamplingRequest {
  SamplingParams params;  // max_tokens left unset: it depends on the prompt
  // As the client gave it (max_tokens, or chat's max_completion_tokens);
  // completions default to 16 as OpenAI's and vLLM's do, chat to the room
  // left in the context.
  std::optional<int64_t> max_tokens;
  int32_t priority = 0;
};

// Reads and validates the fields for outputs of `kind` (delta when
// streaming); on error the reader holds it and the result is nullopt.
// `ordered_body` is the reader's object read with its key order (for JSON
// schemas, whose properties keep it).
std::optional<SamplingRequest> ReadSamplingRequest(FieldReader& r, const nlohmann::ordered_json& ordered_body,
                                                   Endpoint endpoint, OutputKind kind, const ServingLimits& limits);

// Sets params.max_tokens for a prompt of `prompt_tokens`, or explains, in
// OpenAI's words, why the prompt and completion do not fit the context.
std::optional<ApiError> FitToContext(SamplingRequest& request, int64_t prompt_tokens, const ServingLimits& limits);

}  // namespace pagoda::server
