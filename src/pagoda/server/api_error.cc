#include "pagoda/server/api_error.h"

#include <nlohmann/json.hpp>

namespace pagoda::server {
namespace {

// A full waiting queue drains in about a step or two.
constexpr int kRetryAfterSeconds = 1;

}  // namespace

const char* ErrorTypeName(int status) {
  switch (status) {
    case 400: return "BadRequestError";
    case 401: return "AuthenticationError";
    case 404: return "NotFoundError";
    case 405: return "MethodNotAllowedError";
    case 408: return "RequestTimeoutError";
    case 413: return "RequestEntityTooLargeError";
    case 429: return "RateLimitError";
    case 431: return "RequestHeaderFieldsTooLargeError";
    case 503: return "ServiceUnavailableError";
    default: return status >= 500 ? "InternalServerError" : "BadRequestError";
  }
}

std::string ErrorJson(const ApiError& error) {
  nlohmann::json body = {{"error",
                          {{"message", error.message},
                           {"type", ErrorTypeName(error.status)},
                           {"param", error.param ? nlohmann::json(*error.param) : nlohmann::json(nullptr)},
                           {"code", error.status}}}};
  return body.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

ApiError FromStatus(const Status& status) {
  switch (status.code()) {
    case StatusCode::kInvalidArgument:
    case StatusCode::kResourceExhausted:
    case StatusCode::kOutOfRange:
    case StatusCode::kUnimplemented:
      return BadRequest(status.message());
    case StatusCode::kUnavailable:
      return ApiError{503, status.message(), std::nullopt, kRetryAfterSeconds};
    default:
      return ApiError{500, status.message(), std::nullopt, std::nullopt};
  }
}

ApiError ShutdownError() { return ApiError{503, "the server is shutting down", std::nullopt, std::nullopt}; }

}  // namespace pagoda::server
