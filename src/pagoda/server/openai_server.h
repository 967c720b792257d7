// The OpenAI-compatible API over an Engine: routing, API-key checks, model
// names, readiness, and the small endpoints (models, health, version,
// tokenize, detokenize, metrics). It sees only the engine's public API.
#pragma once

#include <atomic>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "pagoda/chat_template/chat_template.h"
#include "pagoda/engine/engine.h"
#include "pagoda/server/http/http_server.h"
#include "pagoda/server/serving_context.h"

namespace pagoda::server {

struct ApiOptions {
  // The names clients may ask for; the first is the one responses carry.
  std::vector<std::string> served_model_names;
  std::optional<std::string> api_key;  // required on /v1/* when set
  std::optional<std::string> chat_template;  // overrides the model's
  int32_t max_logprobs = 20;
};

class OpenAiApi {
 public:
  explicit OpenAiApi(ApiOptions options);

  // Makes the API ready to serve with `engine` (until then /health and the
  // API answer 503). Fails if the chat template does not parse.
  Status SetEngine(Engine* engine);
  bool ready() const { return ready_.load(std::memory_order_acquire); }

  void Handle(http::Request request, std::shared_ptr<http::Responder> responder);
  // Errors the HTTP layer sends itself, in the API's shape.
  static http::Response MakeError(int status, std::string message);

 private:
  bool Authorized(const http::Request& request) const;
  // The model named in the body, checked; an error response otherwise.
  std::optional<http::Response> CheckModel(const nlohmann::json& body) const;
  http::Response Models() const;
  http::Response Tokenize(const nlohmann::json& body, const nlohmann::ordered_json& ordered_body) const;
  http::Response Detokenize(const nlohmann::json& body) const;

  ApiOptions options_;
  std::optional<chat_template::ChatTemplate> chat_template_;
  ServingContext ctx_;
  std::atomic<bool> ready_{false};
  int64_t created_ = 0;
};

}  // namespace pagoda::server
