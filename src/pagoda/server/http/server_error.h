// Responses to the errors the server finds itself (malformed or oversized
// requests, timeouts, throwing handlers, shutdown), made by the config's
// make_error so they look like the API's own errors.
#pragma once

#include <string>

#include "pagoda/server/http/http_server.h"

namespace pagoda::http::internal {

// Always has `status`. Falls back to plain text if make_error is unset or throws.
Response ServerErrorResponse(const ServerConfig& config, int status, std::string message);

}  // namespace pagoda::http::internal
