// libFuzzer target for the server's request reading: the input is a request
// body, read as /v1/completions and as /v1/chat/completions read it (the
// steps of ServeCompletions and ServeChatCompletions before the engine),
// with the default model's tokenizer and chat template.
//
// Invariants: no crash or sanitizer report; a request that reads without
// error gives SamplingParams that Validate() accepts, also once fitted to
// the context and normalized; every prompt is non-empty and in the
// vocabulary.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "model_assets.h"
#include "pagoda/chat_template/chat_template.h"
#include "pagoda/server/bounded_json.h"
#include "pagoda/server/chat_prompt.h"
#include "pagoda/server/field_reader.h"
#include "pagoda/server/prompt_input.h"
#include "pagoda/server/sampling_request.h"
#include "pagoda/server/stream_options.h"

namespace {

using pagoda::OutputKind;
using pagoda::SamplingParams;
using pagoda::server::Endpoint;
using pagoda::server::FieldReader;
using pagoda::server::SamplingRequest;
using pagoda::tokenizer::Tokenizer;

// SmolLM2's context and vocabulary, and vLLM's default --max-logprobs.
constexpr pagoda::server::ServingLimits kLimits{.max_model_len = 8192, .vocab_size = 49152, .max_logprobs = 20};

[[noreturn]] void Fail(const char* what, const std::string& detail) {
  std::fprintf(stderr, "sampling_request_fuzz: %s: %s\n", what, detail.c_str());
  __builtin_trap();
}

const pagoda::chat_template::ChatTemplate& DefaultChatTemplate() {
  static const pagoda::chat_template::ChatTemplate chat_template = [] {
    auto parsed = pagoda::chat_template::ChatTemplate::Parse(pagoda::fuzz::DefaultModelAssets().chat_template);
    if (!parsed.ok()) Fail("the default chat template does not parse", parsed.status().ToString());
    return std::move(*parsed);
  }();
  return chat_template;
}

// What a request that read without error must satisfy, for a prompt of
// `prompt_tokens` tokens.
void CheckAccepted(SamplingRequest request, int64_t prompt_tokens) {
  if (pagoda::Status s = request.params.Validate(); !s.ok()) Fail("accepted params fail Validate", s.ToString());
  if (FitToContext(request, prompt_tokens, kLimits)) return;  // a 400, as the server answers
  SamplingParams& p = request.params;
  if (pagoda::Status s = p.Validate(); !s.ok()) Fail("fitted params fail Validate", s.ToString());
  if (!p.max_tokens || *p.max_tokens < 1 || prompt_tokens + *p.max_tokens > kLimits.max_model_len) {
    Fail("max_tokens does not fit the context", std::to_string(p.max_tokens.value_or(-1)));
  }
  (void)p.ValidateTokenIds(pagoda::fuzz::DefaultModelAssets().tokenizer->vocab_size());
  p.Normalize();
  if (pagoda::Status s = p.Validate(); !s.ok()) Fail("normalized params fail Validate", s.ToString());
}

void ReadAsCompletions(const nlohmann::json& body, const nlohmann::ordered_json& ordered_body, const Tokenizer& tok) {
  FieldReader r(body);
  const bool stream = r.Bool("stream").value_or(false);
  (void)pagoda::server::ReadStreamOptions(r, stream);
  (void)r.Bool("echo");
  const bool add_special_tokens = r.Bool("add_special_tokens").value_or(true);
  std::optional<SamplingRequest> sampling = ReadSamplingRequest(
      r, ordered_body, Endpoint::kCompletions, stream ? OutputKind::kDelta : OutputKind::kFinalOnly, kLimits);
  if (!r.ok()) return;
  if (!sampling) Fail("completions", "no error and no sampling request");
  const auto prompts = pagoda::server::ReadPrompts(r, tok, add_special_tokens);
  if (!r.ok()) return;
  if (!prompts || prompts->empty()) Fail("completions", "no error and no prompt");
  for (const pagoda::server::PromptInput& p : *prompts) {
    if (p.token_ids.empty()) Fail("completions", "an empty prompt was accepted");
    for (int32_t id : p.token_ids) {
      if (!tok.IsValidId(id)) Fail("completions", "a prompt token is outside the vocabulary");
    }
    CheckAccepted(*sampling, static_cast<int64_t>(p.token_ids.size()));
  }
}

void ReadAsChat(const nlohmann::json& body, const nlohmann::ordered_json& ordered_body, const Tokenizer& tok) {
  FieldReader r(body);
  const bool stream = r.Bool("stream").value_or(false);
  (void)pagoda::server::ReadStreamOptions(r, stream);
  const bool add_special_tokens = r.Bool("add_special_tokens").value_or(false);
  std::optional<SamplingRequest> sampling =
      ReadSamplingRequest(r, ordered_body, Endpoint::kChat, stream ? OutputKind::kDelta : OutputKind::kFinalOnly, kLimits);
  std::optional<std::string> prompt;
  if (r.ok()) prompt = RenderChatPrompt(r, ordered_body, DefaultChatTemplate(), tok);
  if (!r.ok()) return;
  if (!sampling || !prompt) Fail("chat", "no error and no sampling request or prompt");
  const std::vector<int32_t> ids = tok.Encode(*prompt, {.add_special = add_special_tokens, .parse_special = true});
  if (!ids.empty()) CheckAccepted(*sampling, static_cast<int64_t>(ids.size()));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  // As the server parses a body (OpenAiApi::ServeBody): invalid JSON, bodies
  // past the nesting and key limits and non-objects are refused before
  // these readers, which read the sorted copy.
  pagoda::StatusOr<nlohmann::ordered_json> ordered = pagoda::server::ParseBoundedJson(text);
  if (!ordered.ok() || !ordered->is_object()) return 0;
  const nlohmann::ordered_json& ordered_body = *ordered;
  const nlohmann::json body = ordered_body;
  const Tokenizer& tok = *pagoda::fuzz::DefaultModelAssets().tokenizer;
  ReadAsCompletions(body, ordered_body, tok);
  ReadAsChat(body, ordered_body, tok);
  return 0;
}
