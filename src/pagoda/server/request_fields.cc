#include "pagoda/server/request_fields.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <unordered_map>

#include "pagoda/server/responses.h"

namespace pagoda::server {
namespace {

using Json = nlohmann::json;

enum Scope : unsigned { kCompletions = 1, kChat = 2, kBoth = kCompletions | kChat };

struct Rule {
  std::string_view field;
  Scope scope;
  FieldPolicy policy;
  std::string_view why = {};  // refused: the 400's message
  // Refused: the value that asks for nothing, accepted (null always is).
  bool (*off)(const Json&) = nullptr;
};

bool EmptyString(const Json& v) { return v.is_string() && v.get_ref<const std::string&>().empty(); }
bool EmptyList(const Json& v) { return v.is_array() && v.empty(); }
bool EmptyObject(const Json& v) { return v.is_object() && v.empty(); }
bool Zero(const Json& v) { return v.is_number() && v.get<double>() == 0; }
bool False(const Json& v) { return v.is_boolean() && !v.get<bool>(); }
bool TextOnly(const Json& v) { return v == Json::array({"text"}); }
bool StandardTier(const Json& v) { return v == "auto" || v == "default"; }

constexpr FieldPolicy kHonoured = FieldPolicy::kHonoured;
constexpr FieldPolicy kRefused = FieldPolicy::kRefused;
constexpr FieldPolicy kMetadata = FieldPolicy::kMetadata;

// One rule per field. Honoured fields are read where their effect is:
// sampling_request.cc, structured_outputs_request.cc, tool_request.cc,
// chat_prompt.cc, request_options.cc and the endpoints.
const Rule kRules[] = {
    // Both endpoints: OpenAI's fields, vLLM's sampling extras, and the
    // legacy ones older vLLM took (best_of, guided_*).
    {"model", kBoth, kHonoured},
    {"stream", kBoth, kHonoured},
    {"stream_options", kBoth, kHonoured},
    {"n", kBoth, kHonoured},
    {"best_of", kBoth, kHonoured},
    {"max_tokens", kBoth, kHonoured},
    {"temperature", kBoth, kHonoured},
    {"top_p", kBoth, kHonoured},
    {"top_k", kBoth, kHonoured},
    {"min_p", kBoth, kHonoured},
    {"presence_penalty", kBoth, kHonoured},
    {"frequency_penalty", kBoth, kHonoured},
    {"repetition_penalty", kBoth, kHonoured},
    {"seed", kBoth, kHonoured},
    {"stop", kBoth, kHonoured},
    {"stop_token_ids", kBoth, kHonoured},
    {"include_stop_str_in_output", kBoth, kHonoured},
    {"ignore_eos", kBoth, kHonoured},
    {"min_tokens", kBoth, kHonoured},
    {"bad_words", kBoth, kHonoured},  // vLLM's chat field; Pagoda's completions take it too
    {"allowed_token_ids", kBoth, kHonoured},
    {"logit_bias", kBoth, kHonoured},
    {"logprobs", kBoth, kHonoured},
    {"prompt_logprobs", kBoth, kHonoured},
    {"use_beam_search", kBoth, kHonoured},
    {"length_penalty", kBoth, kHonoured},
    {"skip_special_tokens", kBoth, kHonoured},
    {"spaces_between_special_tokens", kBoth, kHonoured},
    {"priority", kBoth, kHonoured},
    {"echo", kBoth, kHonoured},
    {"add_special_tokens", kBoth, kHonoured},
    {"truncate_prompt_tokens", kBoth, kHonoured},
    {"request_id", kBoth, kHonoured},
    {"return_token_ids", kBoth, kHonoured},
    {"return_tokens_as_token_ids", kBoth, kHonoured},
    {"cache_salt", kBoth, kHonoured},
    {"response_format", kBoth, kHonoured},
    {"structured_outputs", kBoth, kHonoured},
    {"guided_json", kBoth, kHonoured},
    {"guided_regex", kBoth, kHonoured},
    {"guided_choice", kBoth, kHonoured},
    {"guided_grammar", kBoth, kHonoured},
    {"guided_whitespace_pattern", kBoth, kHonoured},
    {"guided_decoding_backend", kBoth, kHonoured},
    {"user", kBoth, kMetadata},
    {"logits_processors", kBoth, kRefused,
     "'logits_processors' is not supported: Pagoda loads no code from requests (vLLM refuses it too unless started "
     "with --logits-processor-pattern)",
     EmptyList},
    {"kv_transfer_params", kBoth, kRefused,
     "'kv_transfer_params' is not supported: Pagoda has no disaggregated prefill to transfer KV blocks with",
     EmptyObject},
    {"vllm_xargs", kBoth, kRefused, "'vllm_xargs' is not supported: Pagoda has no extensions to pass them to",
     EmptyObject},
    {"max_repetition_pattern_size", kBoth, kRefused,
     "'max_repetition_pattern_size' is not supported: Pagoda does not detect repeated patterns; 0 (off) is accepted",
     Zero},
    {"min_repetition_pattern_size", kBoth, kRefused,
     "'min_repetition_pattern_size' is not supported: Pagoda does not detect repeated patterns; 0 (off) is accepted",
     Zero},
    {"repetition_min_count", kBoth, kRefused,
     "'repetition_min_count' is not supported: Pagoda does not detect repeated patterns; 0 (off) is accepted", Zero},

    // Completions only.
    {"prompt", kCompletions, kHonoured},
    {"suffix", kCompletions, kRefused,
     "'suffix' is not supported: Pagoda has no fill-in-the-middle completions (vLLM refuses it too)", EmptyString},
    {"prompt_embeds", kCompletions, kRefused,
     "'prompt_embeds' is not supported: Pagoda's models take token ids, not embeddings", EmptyList},

    // Chat only.
    {"messages", kChat, kHonoured},
    {"max_completion_tokens", kChat, kHonoured},
    {"top_logprobs", kChat, kHonoured},
    {"tools", kChat, kHonoured},
    {"tool_choice", kChat, kHonoured},
    {"parallel_tool_calls", kChat, kHonoured},
    {"functions", kChat, kHonoured},
    {"function_call", kChat, kHonoured},
    {"add_generation_prompt", kChat, kHonoured},
    {"continue_final_message", kChat, kHonoured},
    {"chat_template_kwargs", kChat, kHonoured},
    {"documents", kChat, kHonoured},
    {"reasoning_effort", kChat, kHonoured},
    {"include_reasoning", kChat, kHonoured},
    {"metadata", kChat, kMetadata},
    {"safety_identifier", kChat, kMetadata},
    {"prompt_cache_key", kChat, kMetadata},
    {"prompt_cache_retention", kChat, kMetadata},
    {"prompt_cache_options", kChat, kMetadata},
    {"chat_template", kChat, kRefused,
     "'chat_template' is not accepted from requests: a template is code the server would run; start the server "
     "with --chat-template FILE instead"},
    {"mm_processor_kwargs", kChat, kRefused,
     "'mm_processor_kwargs' is not supported: Pagoda's models take text only", EmptyObject},
    {"structural_tag", kChat, kRefused, "'structural_tag' is not supported: Pagoda has no structural tag outputs"},
    {"audio", kChat, kRefused, "'audio' is not supported: Pagoda's models write text only"},
    {"modalities", kChat, kRefused, "'modalities' may only be [\"text\"]: Pagoda's models write text only",
     TextOnly},
    {"prediction", kChat, kRefused, "'prediction' is not supported: Pagoda has no predicted outputs"},
    {"moderation", kChat, kRefused, "'moderation' is not supported: Pagoda runs no moderation model"},
    {"web_search_options", kChat, kRefused, "'web_search_options' is not supported: Pagoda has no web search"},
    {"verbosity", kChat, kRefused, "'verbosity' is not supported: no model served here takes a verbosity setting"},
    {"store", kChat, kRefused, "'store' may only be false: Pagoda stores no completions", False},
    {"service_tier", kChat, kRefused,
     "'service_tier' may only be 'auto' or 'default': Pagoda serves every request alike", StandardTier},
};

const Rule* FindRule(Endpoint endpoint, std::string_view field) {
  static const std::unordered_map<std::string_view, const Rule*> index = [] {
    std::unordered_map<std::string_view, const Rule*> map;
    for (const Rule& rule : kRules) map.emplace(rule.field, &rule);
    return map;
  }();
  const auto it = index.find(field);
  if (it == index.end()) return nullptr;
  const Scope scope = endpoint == Endpoint::kCompletions ? kCompletions : kChat;
  return (it->second->scope & scope) != 0 ? it->second : nullptr;
}

// A field name as Python's repr spells a str, as vLLM's warning prints its
// set; control characters stay escaped so a name cannot forge log lines.
std::string QuotedName(const std::string& name) {
  const std::string json = Json(name).dump(-1, ' ', false, Json::error_handler_t::replace);
  return fmt::format("'{}'", std::string_view(json).substr(1, json.size() - 2));
}

void RefuseUnsupported(FieldReader& r, Endpoint endpoint) {
  for (const auto& [field, value] : r.object().items()) {
    const Rule* rule = FindRule(endpoint, field);
    if (rule == nullptr || rule->policy != FieldPolicy::kRefused || value.is_null()) continue;
    if (rule->off != nullptr && rule->off(value)) continue;
    return r.Fail(field, std::string(rule->why));
  }
}

// OpenAI's metadata: at most 16 string values, keys of at most 64
// characters and values of at most 512.
void CheckMetadataObject(FieldReader& r) {
  const Json& v = r.Raw("metadata");
  if (v.is_null()) return;
  bool ok = v.is_object() && v.size() <= 16;
  for (auto it = v.begin(); ok && it != v.end(); ++it) {
    ok = it.key().size() <= 64 && it->is_string() && it->get_ref<const std::string&>().size() <= 512;
  }
  if (!ok) {
    r.Fail("metadata", "'metadata' must be an object of at most 16 strings, keys of at most 64 characters and "
                       "values of at most 512");
  }
}

// Checks the metadata fields the endpoint knows; returns those present.
Json ReadMetadata(FieldReader& r, Endpoint endpoint) {
  Json present = Json::object();
  for (const Rule& rule : kRules) {
    if (rule.policy != FieldPolicy::kMetadata || FindRule(endpoint, rule.field) == nullptr) continue;
    if (!r.Has(rule.field)) continue;
    if (rule.field == "metadata") {
      CheckMetadataObject(r);
    } else if (rule.field == "prompt_cache_options") {
      if (!r.Raw(rule.field).is_object()) r.Fail(rule.field, "'prompt_cache_options' must be an object");
    } else if (std::optional<std::string> s = r.String(rule.field); s && rule.field == "prompt_cache_retention" &&
                                                                       *s != "in_memory" && *s != "24h") {
      r.Fail(rule.field, "'prompt_cache_retention' must be 'in_memory' or '24h'");
    }
    present[std::string(rule.field)] = r.Raw(rule.field);
  }
  return present;
}

}  // namespace

std::optional<FieldPolicy> PolicyOf(Endpoint endpoint, std::string_view field) {
  const Rule* rule = FindRule(endpoint, field);
  return rule ? std::optional(rule->policy) : std::nullopt;
}

std::vector<std::string> UnknownFields(const nlohmann::json& body, Endpoint endpoint) {
  std::vector<std::string> unknown;
  if (!body.is_object()) return unknown;
  for (const auto& [field, value] : body.items()) {
    if (FindRule(endpoint, field) == nullptr) unknown.push_back(field);
  }
  return unknown;
}

std::string IgnoredFieldsWarning(const std::vector<std::string>& fields) {
  // A body may hold tens of thousands of keys: the line names a few.
  constexpr size_t kMaxNamed = 32;
  std::string names;
  for (size_t i = 0; i < fields.size() && i < kMaxNamed; ++i) {
    if (i > 0) names += ", ";
    names += QuotedName(fields[i]);
  }
  if (fields.size() > kMaxNamed) names += fmt::format(", ... ({} more)", fields.size() - kMaxNamed);
  return fmt::format("The following fields were present in the request but ignored: {{{}}}", names);
}

void ScreenRequestFields(FieldReader& r, Endpoint endpoint, std::string_view id) {
  if (const std::vector<std::string> unknown = UnknownFields(r.object(), endpoint); !unknown.empty()) {
    spdlog::warn("{}", IgnoredFieldsWarning(unknown));
  }
  if (!r.ok()) return;
  RefuseUnsupported(r, endpoint);
  const Json metadata = ReadMetadata(r, endpoint);
  if (!r.ok() || metadata.empty()) return;
  // Bounded: the line is for people, and `user` has no length limit.
  constexpr size_t kMaxLogged = 2048;
  std::string text = DumpJson(metadata);
  if (text.size() > kMaxLogged) text = text.substr(0, kMaxLogged) + "...";
  spdlog::info("{}: request metadata {}", id, text);
}

}  // namespace pagoda::server
