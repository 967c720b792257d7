// POST /v1/completions: OpenAI's legacy completions with vLLM's extras, one
// response or a stream of server-sent events.
#pragma once

#include <memory>

#include <nlohmann/json.hpp>

#include "pagoda/server/http/http_server.h"
#include "pagoda/server/serving_context.h"

namespace pagoda::server {

// `body` is the parsed request (`ordered_body` the same with its key
// order); the response goes to `responder`, now (an error) or as the
// engine produces it.
void ServeCompletions(const ServingContext& ctx, const nlohmann::json& body, const nlohmann::ordered_json& ordered_body,
                      const std::shared_ptr<http::Responder>& responder);

}  // namespace pagoda::server
