// Shared pieces of the API's responses: JSON bodies, errors, SSE framing,
// ids, timestamps and the fields every completion choice carries.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "pagoda/engine/request_output.h"
#include "pagoda/server/api_error.h"
#include "pagoda/server/http/http_server.h"

namespace pagoda::server {

// Serializes, replacing invalid UTF-8 rather than throwing.
std::string DumpJson(const nlohmann::json& value);
http::Response JsonResponse(int status, const nlohmann::json& body);
http::Response ErrorResponse(const ApiError& error);

// One server-sent event, and the stream's end marker.
std::string SseEvent(const nlohmann::json& data);
inline constexpr std::string_view kSseDone = "data: [DONE]\n\n";

// "<prefix>-" and 32 random hex digits, as vLLM's ids.
std::string NewRequestId(std::string_view prefix);
int64_t UnixSeconds();

nlohmann::json FinishReasonJson(const std::optional<FinishReason>& reason);
nlohmann::json StopReasonJson(const StopReason& reason);
nlohmann::json UsageJson(int64_t prompt_tokens, int64_t completion_tokens);

}  // namespace pagoda::server
