// Errors the OpenAI-compatible API returns, in OpenAI's shape
// {"error": {"message", "type", "param", "code"}} with vLLM's type names and
// the HTTP status as the code.
#pragma once

#include <optional>
#include <string>

#include "pagoda/base/status.h"

namespace pagoda::server {

struct ApiError {
  int status = 400;
  std::string message;
  std::optional<std::string> param;  // the request field at fault, when one is
  // Sent as Retry-After: when the client may try again (overload).
  std::optional<int> retry_after_seconds;
};

inline ApiError BadRequest(std::string message, std::optional<std::string> param = std::nullopt) {
  return ApiError{400, std::move(message), std::move(param), std::nullopt};
}

// vLLM's error type for a status: BadRequestError, NotFoundError, ...
const char* ErrorTypeName(int status);
// The response body.
std::string ErrorJson(const ApiError& error);
// An engine refusal as the client sees it: invalid arguments and requests
// that can never fit are the client's (400); a full waiting queue is a 503
// to retry shortly; anything else is ours (500).
ApiError FromStatus(const Status& status);
// What a request gets while the server shuts down.
ApiError ShutdownError();

}  // namespace pagoda::server
