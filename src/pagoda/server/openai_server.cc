#include "pagoda/server/openai_server.h"

#include <openssl/crypto.h>
#include <openssl/sha.h>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "pagoda/metrics/engine_metrics.h"
#include "pagoda/server/bounded_json.h"
#include "pagoda/server/chat_completions.h"
#include "pagoda/server/chat_prompt.h"
#include "pagoda/server/completions.h"
#include "pagoda/server/responses.h"
#include "pagoda/server/token_id.h"

namespace pagoda::server {
namespace {

constexpr const char* kVersion = "0.1.0";

http::Response Text(int status, std::string content_type, std::string body) {
  http::Response r;
  r.status = status;
  r.content_type = std::move(content_type);
  r.body = std::move(body);
  return r;
}

std::array<unsigned char, SHA256_DIGEST_LENGTH> Sha256(std::string_view text) {
  std::array<unsigned char, SHA256_DIGEST_LENGTH> digest{};
  SHA256(reinterpret_cast<const unsigned char*>(text.data()), text.size(), digest.data());
  return digest;
}

}  // namespace

OpenAiApi::OpenAiApi(ApiOptions options)
    : options_(std::move(options)), created_(UnixSeconds()), workers_(options_.request_workers) {
  if (options_.api_key) api_key_digest_ = Sha256(*options_.api_key);
  ctx_.jobs = &jobs_;
  if (options_.enable_auto_tool_choice) ctx_.auto_tool_parser = options_.tool_call_parser.get();
  ctx_.reasoning_parser = options_.reasoning_parser.get();
}

Status OpenAiApi::SetEngine(Engine* engine) {
  ctx_.engine = engine;
  ctx_.model_name = options_.served_model_names.at(0);
  ctx_.limits = ServingLimits{.max_model_len = *engine->config().max_model_len,
                              .vocab_size = engine->tokenizer().vocab_size(),
                              .max_logprobs = options_.max_logprobs,
                              .defaults = engine->generation_defaults()};
  const std::optional<std::string>& source = options_.chat_template ? options_.chat_template : engine->chat_template();
  if (source) {
    StatusOr<chat_template::ChatTemplate> parsed = chat_template::ChatTemplate::Parse(*source);
    if (!parsed.ok()) return InvalidArgumentError("the chat template does not parse: " + parsed.status().message());
    chat_template_.emplace(std::move(*parsed));
    ctx_.chat_template = &*chat_template_;
  }
  ready_.store(true, std::memory_order_release);
  return Status::Ok();
}

http::Response OpenAiApi::MakeError(int status, std::string message) {
  return ErrorResponse(ApiError{status, std::move(message), std::nullopt, std::nullopt});
}

bool OpenAiApi::Authorized(const http::Request& request) const {
  if (!options_.api_key) return true;
  const std::optional<std::string_view> header = request.header("Authorization");
  constexpr std::string_view kBearer = "Bearer ";
  if (!header || !header->starts_with(kBearer)) return false;
  // Digests have one length, so the comparison's time says nothing about
  // the key's length or how much of it a guess got right.
  const std::array<unsigned char, SHA256_DIGEST_LENGTH> given = Sha256(header->substr(kBearer.size()));
  return CRYPTO_memcmp(given.data(), api_key_digest_.data(), given.size()) == 0;
}

std::optional<http::Response> OpenAiApi::CheckModel(const nlohmann::json& body) const {
  if (!body.is_object() || !body.contains("model") || body["model"].is_null()) return std::nullopt;
  if (!body["model"].is_string()) return ErrorResponse(BadRequest("'model' must be a string", "model"));
  const std::string model = body["model"].get<std::string>();
  for (const std::string& name : options_.served_model_names) {
    if (name == model) return std::nullopt;
  }
  return ErrorResponse(ApiError{404, fmt::format("The model `{}` does not exist.", model), "model", std::nullopt});
}

http::Response OpenAiApi::Models() const {
  nlohmann::json data = nlohmann::json::array();
  for (const std::string& name : options_.served_model_names) {
    data.push_back({{"id", name},
                    {"object", "model"},
                    {"created", created_},
                    {"owned_by", "pagoda"},
                    {"root", ctx_.engine->config().model},
                    {"parent", nullptr},
                    {"max_model_len", ctx_.limits.max_model_len}});
  }
  return JsonResponse(200, {{"object", "list"}, {"data", std::move(data)}});
}

http::Response OpenAiApi::Tokenize(const nlohmann::json& body, const nlohmann::ordered_json& ordered_body) const {
  FieldReader r(body);
  const tokenizer::Tokenizer& tokenizer = ctx_.engine->tokenizer();
  std::vector<int32_t> tokens;
  if (r.Has("messages")) {
    if (ctx_.chat_template == nullptr) return ErrorResponse(BadRequest("the model has no chat template", "messages"));
    std::optional<std::string> prompt = RenderChatPrompt(r, ordered_body, *ctx_.chat_template, tokenizer);
    const bool add_special = r.Bool("add_special_tokens").value_or(false);
    if (!r.ok()) return ErrorResponse(*r.error());
    tokens = tokenizer.Encode(*prompt, {.add_special = add_special, .parse_special = true});
  } else {
    std::optional<std::string> prompt = r.String("prompt");
    const bool add_special = r.Bool("add_special_tokens").value_or(true);
    if (r.ok() && !prompt) r.Fail("prompt", "'prompt' (a string) or 'messages' is required");
    if (!r.ok()) return ErrorResponse(*r.error());
    tokens = tokenizer.Encode(*prompt, {.add_special = add_special, .parse_special = true});
  }
  nlohmann::json body_out = {{"count", tokens.size()},
                             {"max_model_len", ctx_.limits.max_model_len},
                             {"tokens", tokens},
                             {"token_strs", nullptr}};
  if (r.Bool("return_token_strs").value_or(false)) {
    nlohmann::json strs = nlohmann::json::array();
    for (int32_t t : tokens) strs.push_back(tokenizer.TokenText(t));
    body_out["token_strs"] = std::move(strs);
  }
  return JsonResponse(200, body_out);
}

http::Response OpenAiApi::Detokenize(const nlohmann::json& body) const {
  FieldReader r(body);
  const nlohmann::json& tokens = r.Raw("tokens");
  std::vector<int32_t> ids;
  if (tokens.is_array()) {
    for (const nlohmann::json& t : tokens) {
      const std::optional<int32_t> id = TokenIdFromJson(t, ctx_.limits.vocab_size);
      if (!id) break;
      ids.push_back(*id);
    }
  }
  if (!tokens.is_array() || ids.size() != tokens.size()) {
    return ErrorResponse(
        BadRequest(fmt::format("'tokens' must be a list of token ids in [0, {})", ctx_.limits.vocab_size), "tokens"));
  }
  StatusOr<std::string> text = ctx_.engine->tokenizer().Decode(ids);
  if (!text.ok()) return ErrorResponse(BadRequest(text.status().message(), "tokens"));
  return JsonResponse(200, {{"prompt", *text}});
}

http::Response OpenAiApi::Health() const {
  if (!ready()) return MakeError(503, "the engine is not ready yet");
  if (draining()) return ErrorResponse(ShutdownError());
  return Text(200, "text/plain", "");
}

void OpenAiApi::Handle(http::Request request, std::shared_ptr<http::Responder> responder) {
  const std::string& path = request.path;
  const bool get = request.method == "GET";
  const bool post = request.method == "POST";
  if (path == "/health") return responder->Send(Health());
  if (path == "/version" && get) return responder->Send(JsonResponse(200, {{"version", kVersion}}));
  if (path == "/metrics" && get) {
    if (!ready()) return responder->Send(MakeError(503, "the engine is not ready yet"));
    return responder->Send(Text(200, "text/plain; version=0.0.4; charset=utf-8", ctx_.engine->metrics().Render()));
  }
  // Under an API key, /v1/* tells a client without it nothing, not even
  // which paths exist.
  if (path.starts_with("/v1/") && !Authorized(request)) {
    return responder->Send(MakeError(401, "invalid or missing API key: send it as 'Authorization: Bearer <key>'"));
  }
  const bool known = path == "/v1/models" || path == "/v1/completions" || path == "/v1/chat/completions" ||
                     path == "/tokenize" || path == "/detokenize";
  if (!known) return responder->Send(MakeError(404, fmt::format("{} not found", path)));
  if ((path == "/v1/models" && !get) || (path != "/v1/models" && !post)) {
    return responder->Send(MakeError(405, fmt::format("method {} is not allowed on {}", request.method, path)));
  }
  if (!ready()) return responder->Send(MakeError(503, "the engine is not ready yet"));
  if (draining()) return responder->Send(ErrorResponse(ShutdownError()));
  if (path == "/v1/models") return responder->Send(Models());
  workers_.Post([this, path = request.path, body = std::move(request.body), responder = std::move(responder)] {
    try {
      ServeBody(path, body, responder);
    } catch (const std::exception& e) {
      spdlog::error("server: {} failed: {}", path, e.what());
      responder->Send(MakeError(500, "internal server error"));
    }
  });
}

void OpenAiApi::ServeBody(const std::string& path, const std::string& body_text,
                          const std::shared_ptr<http::Responder>& responder) {
  if (draining()) return responder->Send(ErrorResponse(ShutdownError()));
  StatusOr<nlohmann::ordered_json> ordered = ParseBoundedJson(body_text);
  if (!ordered.ok()) return responder->Send(ErrorResponse(BadRequest(ordered.status().message())));
  if (!ordered->is_object()) return responder->Send(ErrorResponse(BadRequest("the request body must be a JSON object")));
  // Fields are looked up in the sorted copy; templates see the ordered one.
  const nlohmann::json body = *ordered;
  if (std::optional<http::Response> error = CheckModel(body)) return responder->Send(std::move(*error));
  if (path == "/v1/completions") return ServeCompletions(ctx_, body, *ordered, responder);
  if (path == "/v1/chat/completions") return ServeChatCompletions(ctx_, body, *ordered, responder);
  if (path == "/tokenize") return responder->Send(Tokenize(body, *ordered));
  return responder->Send(Detokenize(body));
}

}  // namespace pagoda::server
