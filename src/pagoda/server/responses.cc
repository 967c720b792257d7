#include "pagoda/server/responses.h"

#include <chrono>
#include <random>

#include <fmt/format.h>

namespace pagoda::server {

std::string DumpJson(const nlohmann::json& value) {
  return value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

http::Response JsonResponse(int status, const nlohmann::json& body) {
  http::Response r;
  r.status = status;
  r.content_type = "application/json";
  r.body = DumpJson(body);
  return r;
}

http::Response ErrorResponse(const ApiError& error) {
  http::Response r;
  r.status = error.status;
  r.content_type = "application/json";
  r.body = ErrorJson(error);
  if (error.retry_after_seconds) r.headers.emplace_back("Retry-After", std::to_string(*error.retry_after_seconds));
  return r;
}

std::string SseEvent(const nlohmann::json& data) { return "data: " + DumpJson(data) + "\n\n"; }

std::string NewRequestId(std::string_view prefix) {
  thread_local std::mt19937_64 rng{std::random_device{}()};
  return fmt::format("{}-{:016x}{:016x}", prefix, rng(), rng());
}

int64_t UnixSeconds() {
  return std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count();
}

nlohmann::json FinishReasonJson(const std::optional<FinishReason>& reason) {
  if (!reason) return nullptr;
  return FinishReasonName(*reason);
}

nlohmann::json StopReasonJson(const StopReason& reason) {
  if (!reason) return nullptr;
  if (const int32_t* token = std::get_if<int32_t>(&*reason)) return *token;
  return std::get<std::string>(*reason);
}

nlohmann::json UsageJson(int64_t prompt_tokens, int64_t completion_tokens) {
  return {{"prompt_tokens", prompt_tokens},
          {"total_tokens", prompt_tokens + completion_tokens},
          {"completion_tokens", completion_tokens},
          {"prompt_tokens_details", nullptr}};
}

}  // namespace pagoda::server
