#include "pagoda/server/sampling_request.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <limits>

#include "pagoda/server/structured_outputs_request.h"
#include "pagoda/server/token_id.h"

namespace pagoda::server {
namespace {

constexpr int64_t kInt32Max = std::numeric_limits<int32_t>::max();

std::optional<int32_t> Int32(FieldReader& r, std::string_view name) {
  std::optional<int64_t> v = r.Int(name);
  if (!v) return std::nullopt;
  if (*v < -kInt32Max || *v > kInt32Max) {
    r.Fail(name, fmt::format("'{}' is out of range", name));
    return std::nullopt;
  }
  return static_cast<int32_t>(*v);
}

std::optional<std::vector<int32_t>> TokenIdList(FieldReader& r, std::string_view name, int64_t vocab_size) {
  const nlohmann::json& v = r.Raw(name);
  if (v.is_null()) return std::nullopt;
  std::vector<int32_t> ids;
  if (v.is_array()) {
    for (const nlohmann::json& e : v) {
      const std::optional<int32_t> id = TokenIdFromJson(e, vocab_size);
      if (!id) break;
      ids.push_back(*id);
    }
    if (ids.size() == v.size()) return ids;
  }
  r.Fail(name, fmt::format("'{}' must be a list of token ids in [0, {})", name, vocab_size));
  return std::nullopt;
}

std::optional<std::vector<std::string>> StringOrList(FieldReader& r, std::string_view name) {
  const nlohmann::json& v = r.Raw(name);
  if (v.is_null()) return std::nullopt;
  if (v.is_string()) return std::vector<std::string>{v.get<std::string>()};
  std::vector<std::string> out;
  if (v.is_array()) {
    for (const nlohmann::json& e : v) {
      if (!e.is_string()) break;
      out.push_back(e.get<std::string>());
    }
    if (out.size() == v.size()) return out;
  }
  r.Fail(name, fmt::format("'{}' must be a string or a list of strings", name));
  return std::nullopt;
}

// OpenAI's logit_bias: {"token id": bias}, the bias clamped to [-100, 100] as vLLM does.
void ReadLogitBias(FieldReader& r, int64_t vocab_size, SamplingParams& p) {
  const nlohmann::json& v = r.Raw("logit_bias");
  if (v.is_null()) return;
  if (!v.is_object()) return r.Fail("logit_bias", "'logit_bias' must be an object of token id to bias");
  for (const auto& [key, bias] : v.items()) {
    int64_t id = -1;
    auto [end, ec] = std::from_chars(key.data(), key.data() + key.size(), id);
    if (ec != std::errc() || end != key.data() + key.size() || id < 0 || id >= vocab_size || !bias.is_number()) {
      return r.Fail("logit_bias", fmt::format("'logit_bias' has an invalid entry '{}': keys are token ids in [0, {}), "
                                              "values numbers", key, vocab_size));
    }
    p.logit_bias[static_cast<int32_t>(id)] = std::clamp(bias.get<float>(), -100.0f, 100.0f);
  }
}

void ReadLogprobs(FieldReader& r, Endpoint endpoint, const ServingLimits& limits, SamplingParams& p) {
  auto check = [&](std::string_view name, int32_t n) {
    if (n < 0 || n > limits.max_logprobs) {
      r.Fail(name, fmt::format("'{}' must be between 0 and {}, got {}", name, limits.max_logprobs, n));
      return false;
    }
    return true;
  };
  if (endpoint == Endpoint::kCompletions) {
    if (std::optional<int32_t> n = Int32(r, "logprobs"); n && check("logprobs", *n)) p.logprobs = *n;
  } else {
    const bool wanted = r.Bool("logprobs").value_or(false);
    const std::optional<int32_t> top = Int32(r, "top_logprobs");
    if (top && !wanted && *top > 0) {
      return r.Fail("top_logprobs", "when using 'top_logprobs', 'logprobs' must be set to true");
    }
    if (top && !check("top_logprobs", *top)) return;
    if (wanted) p.logprobs = top.value_or(0);
  }
  if (std::optional<int32_t> n = Int32(r, "prompt_logprobs"); n && check("prompt_logprobs", *n)) p.prompt_logprobs = *n;
}

}  // namespace

std::optional<SamplingRequest> ReadSamplingRequest(FieldReader& r, const nlohmann::ordered_json& ordered_body,
                                                   Endpoint endpoint, OutputKind kind, const ServingLimits& limits) {
  SamplingRequest out;
  SamplingParams& p = out.params;
  limits.defaults.ApplyTo(p);  // the request's own values below win
  p.max_tokens.reset();        // set from the request and the context below
  p.output_kind = kind;
  if (auto v = Int32(r, "n")) p.n = *v;
  if (auto v = Int32(r, "best_of")) p.best_of = *v;
  if (auto v = r.Number("temperature")) p.temperature = static_cast<float>(*v);
  if (auto v = r.Number("top_p")) p.top_p = static_cast<float>(*v);
  if (auto v = Int32(r, "top_k")) p.top_k = *v;
  if (auto v = r.Number("min_p")) p.min_p = static_cast<float>(*v);
  if (auto v = r.Number("presence_penalty")) p.presence_penalty = static_cast<float>(*v);
  if (auto v = r.Number("frequency_penalty")) p.frequency_penalty = static_cast<float>(*v);
  if (auto v = r.Number("repetition_penalty")) p.repetition_penalty = static_cast<float>(*v);
  if (auto v = r.Int("seed")) p.seed = *v;
  if (auto v = StringOrList(r, "stop")) p.stop = std::move(*v);
  if (auto v = TokenIdList(r, "stop_token_ids", limits.vocab_size)) p.stop_token_ids = std::move(*v);
  if (auto v = r.Bool("include_stop_str_in_output")) p.include_stop_str_in_output = *v;
  if (auto v = r.Bool("ignore_eos")) p.ignore_eos = *v;
  if (auto v = Int32(r, "min_tokens")) p.min_tokens = *v;
  if (auto v = StringOrList(r, "bad_words")) p.bad_words = std::move(*v);
  if (auto v = TokenIdList(r, "allowed_token_ids", limits.vocab_size)) p.allowed_token_ids = std::move(*v);
  if (auto v = r.Bool("skip_special_tokens")) p.skip_special_tokens = *v;
  if (auto v = r.Bool("spaces_between_special_tokens")) p.spaces_between_special_tokens = *v;
  if (auto v = r.Bool("use_beam_search")) p.use_beam_search = *v;
  if (auto v = r.Number("length_penalty")) p.length_penalty = static_cast<float>(*v);
  if (p.use_beam_search) {
    // vLLM's server searches with n beams and returns them all; beams are
    // ranked by log probability, so the temperature defaults to 0.
    p.beam_width = p.n;
    if (!r.Has("temperature")) p.temperature = 0.0f;
  }
  ReadLogitBias(r, limits.vocab_size, p);
  ReadStructuredOutputs(r, ordered_body, p);
  ReadLogprobs(r, endpoint, limits, p);
  if (auto v = Int32(r, "priority")) out.priority = *v;
  if (auto v = r.String("cache_salt"); v && v->empty()) {
    r.Fail("cache_salt", "Parameter 'cache_salt' must be a non-empty string if provided.");
  } else if (v) {
    p.cache_salt = std::move(*v);
  }

  // Chat's max_completion_tokens supersedes its deprecated max_tokens.
  std::optional<int64_t> max_tokens = r.Int("max_tokens");
  if (endpoint == Endpoint::kChat) {
    if (auto v = r.Int("max_completion_tokens")) max_tokens = v;
  } else if (!max_tokens && !r.Has("max_tokens")) {
    max_tokens = 16;
  }
  if (max_tokens && *max_tokens < 1) {
    r.Fail(endpoint == Endpoint::kChat && r.Has("max_completion_tokens") ? "max_completion_tokens" : "max_tokens",
           fmt::format("max_tokens must be at least 1, got {}", *max_tokens));
  }
  // As vLLM, the model's max_new_tokens caps what any request generates.
  if (limits.defaults.max_tokens) {
    max_tokens = std::min<int64_t>(max_tokens.value_or(*limits.defaults.max_tokens), *limits.defaults.max_tokens);
  }
  out.max_tokens = max_tokens;
  if (!r.ok()) return std::nullopt;
  p.max_tokens = max_tokens ? std::optional<int32_t>(static_cast<int32_t>(std::min<int64_t>(*max_tokens, kInt32Max)))
                            : std::nullopt;
  if (Status s = p.Validate(); !s.ok()) {
    r.Fail("", s.message());
    return std::nullopt;
  }
  return out;
}

std::optional<ApiError> FitToContext(SamplingRequest& request, int64_t prompt_tokens, const ServingLimits& limits) {
  const int64_t room = limits.max_model_len - prompt_tokens;
  const int64_t wanted = request.max_tokens.value_or(std::max<int64_t>(room, 1));
  if (prompt_tokens >= limits.max_model_len || wanted > room) {
    return BadRequest(fmt::format("This model's maximum context length is {} tokens. However, you requested {} tokens "
                                  "({} in the messages, {} in the completion). Please reduce the length of the "
                                  "messages or completion.",
                                  limits.max_model_len, prompt_tokens + wanted, prompt_tokens, wanted),
                      request.max_tokens ? "max_tokens" : "messages");
  }
  request.params.max_tokens = static_cast<int32_t>(wanted);
  return std::nullopt;
}

}  // namespace pagoda::server
