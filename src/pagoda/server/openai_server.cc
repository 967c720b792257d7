#include "pagoda/server/openai_server.h"

#include <fmt/format.h>

#include "pagoda/server/chat_completions.h"
#include "pagoda/server/chat_prompt.h"
#include "pagoda/server/completions.h"
#include "pagoda/server/responses.h"

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

// Compares without revealing, through timing, how much of a wrong key matched.
bool ConstantTimeEquals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  unsigned char diff = 0;
  for (size_t i = 0; i < a.size(); ++i) diff |= static_cast<unsigned char>(a[i] ^ b[i]);
  return diff == 0;
}

}  // namespace

OpenAiApi::OpenAiApi(ApiOptions options) : options_(std::move(options)), created_(UnixSeconds()) {}

Status OpenAiApi::SetEngine(Engine* engine) {
  ctx_.engine = engine;
  ctx_.model_name = options_.served_model_names.at(0);
  ctx_.limits = ServingLimits{*engine->config().max_model_len, options_.max_logprobs};
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
  return ErrorResponse(ApiError{status, std::move(message), std::nullopt});
}

bool OpenAiApi::Authorized(const http::Request& request) const {
  if (!options_.api_key) return true;
  const std::optional<std::string_view> header = request.header("Authorization");
  constexpr std::string_view kBearer = "Bearer ";
  if (!header || !header->starts_with(kBearer)) return false;
  return ConstantTimeEquals(header->substr(kBearer.size()), *options_.api_key);
}

std::optional<http::Response> OpenAiApi::CheckModel(const nlohmann::json& body) const {
  if (!body.is_object() || !body.contains("model") || body["model"].is_null()) return std::nullopt;
  if (!body["model"].is_string()) return ErrorResponse(BadRequest("'model' must be a string", "model"));
  const std::string model = body["model"].get<std::string>();
  for (const std::string& name : options_.served_model_names) {
    if (name == model) return std::nullopt;
  }
  return ErrorResponse(ApiError{404, fmt::format("The model `{}` does not exist.", model), "model"});
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
      if (!t.is_number_integer()) break;
      ids.push_back(t.get<int32_t>());
    }
  }
  if (!tokens.is_array() || ids.size() != tokens.size()) {
    return ErrorResponse(BadRequest("'tokens' must be a list of token ids", "tokens"));
  }
  StatusOr<std::string> text = ctx_.engine->tokenizer().Decode(ids);
  if (!text.ok()) return ErrorResponse(BadRequest(text.status().message(), "tokens"));
  return JsonResponse(200, {{"prompt", *text}});
}

void OpenAiApi::Handle(http::Request request, std::shared_ptr<http::Responder> responder) {
  const std::string& path = request.path;
  const bool get = request.method == "GET";
  const bool post = request.method == "POST";
  if (path == "/health") {
    return responder->Send(ready() ? Text(200, "text/plain", "") : MakeError(503, "the engine is not ready yet"));
  }
  if (path == "/version" && get) return responder->Send(JsonResponse(200, {{"version", kVersion}}));
  if (path == "/metrics" && get) {
    if (!ready()) return responder->Send(MakeError(503, "the engine is not ready yet"));
    return responder->Send(Text(200, "text/plain; version=0.0.4; charset=utf-8", ctx_.engine->metrics().Render()));
  }
  const bool api = path.starts_with("/v1/");
  const bool known = path == "/v1/models" || path == "/v1/completions" || path == "/v1/chat/completions" ||
                     path == "/tokenize" || path == "/detokenize";
  if (!known) return responder->Send(MakeError(404, fmt::format("{} not found", path)));
  if (api && !Authorized(request)) {
    return responder->Send(MakeError(401, "invalid or missing API key: send it as 'Authorization: Bearer <key>'"));
  }
  if ((path == "/v1/models" && !get) || (path != "/v1/models" && !post)) {
    return responder->Send(MakeError(405, fmt::format("method {} is not allowed on {}", request.method, path)));
  }
  if (!ready()) return responder->Send(MakeError(503, "the engine is not ready yet"));
  if (path == "/v1/models") return responder->Send(Models());

  nlohmann::json body = nlohmann::json::parse(request.body, nullptr, /*allow_exceptions=*/false);
  if (body.is_discarded()) return responder->Send(ErrorResponse(BadRequest("the request body is not valid JSON")));
  if (!body.is_object()) return responder->Send(ErrorResponse(BadRequest("the request body must be a JSON object")));
  if (std::optional<http::Response> error = CheckModel(body)) return responder->Send(std::move(*error));
  if (path == "/v1/completions") return ServeCompletions(ctx_, body, responder);
  if (path == "/v1/chat/completions" || path == "/tokenize") {
    const nlohmann::ordered_json ordered = nlohmann::ordered_json::parse(request.body, nullptr, false);
    if (path == "/tokenize") return responder->Send(Tokenize(body, ordered));
    return ServeChatCompletions(ctx_, body, ordered, responder);
  }
  return responder->Send(Detokenize(body));
}

}  // namespace pagoda::server
