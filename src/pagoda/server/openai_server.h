// The OpenAI-compatible API over an Engine: routing, API-key checks, model
// names, readiness, draining, and the small endpoints (models, health,
// version, tokenize, detokenize, metrics). It sees only the engine's public
// API.
//
// Handle() runs on an HTTP io thread and does only what is cheap there;
// requests with a body are parsed, rendered, tokenized and added to the
// engine on the request workers.
#pragma once

#include <array>
#include <atomic>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "pagoda/chat_template/chat_template.h"
#include "pagoda/engine/engine.h"
#include "pagoda/server/http/http_server.h"
#include "pagoda/server/job_registry.h"
#include "pagoda/server/request_workers.h"
#include "pagoda/server/serving_context.h"

namespace pagoda::server {

struct ApiOptions {
  // The names clients may ask for; the first is the one responses carry.
  std::vector<std::string> served_model_names;
  std::optional<std::string> api_key;  // required on /v1/* when set
  std::optional<std::string> chat_template;  // overrides the model's
  int32_t max_logprobs = 20;
  // Threads that parse and prepare requests with a body.
  int request_workers = 2;
  // --tool-call-parser, and whether tool_choice "auto" may use it
  // (--enable-auto-tool-choice).
  std::shared_ptr<const ToolCallParser> tool_call_parser;
  bool enable_auto_tool_choice = false;
  std::shared_ptr<const ReasoningParser> reasoning_parser;  // --reasoning-parser
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

  // Shutdown, in order. From BeginDrain on, /health and new requests get
  // 503 while the generations in flight run on; EndInFlight ends those
  // still running (streams get a final chunk with finish_reason "abort" and
  // [DONE], others a 503); StopWorkers, once the HTTP server has stopped,
  // finishes the requests still being prepared.
  void BeginDrain() { draining_.store(true, std::memory_order_release); }
  size_t num_in_flight() const { return jobs_.size(); }
  void EndInFlight() { jobs_.ShutdownAll(); }
  void StopWorkers() { workers_.Join(); }

 private:
  bool draining() const { return draining_.load(std::memory_order_acquire); }
  bool Authorized(const http::Request& request) const;
  // Parses the body and serves it; runs on a request worker.
  void ServeBody(const std::string& path, const std::string& body_text,
                 const std::shared_ptr<http::Responder>& responder);
  // The model named in the body, checked; an error response otherwise.
  std::optional<http::Response> CheckModel(const nlohmann::json& body) const;
  http::Response Health() const;
  http::Response Models() const;
  http::Response Tokenize(const nlohmann::json& body, const nlohmann::ordered_json& ordered_body) const;
  http::Response Detokenize(const nlohmann::json& body) const;

  ApiOptions options_;
  std::array<unsigned char, 32> api_key_digest_{};  // SHA-256 of options_.api_key
  std::optional<chat_template::ChatTemplate> chat_template_;
  ServingContext ctx_;
  std::atomic<bool> ready_{false};
  std::atomic<bool> draining_{false};
  int64_t created_ = 0;
  JobRegistry jobs_;
  // Last: destroyed first, finishing its tasks while the rest still lives.
  RequestWorkers workers_;
};

}  // namespace pagoda::server
