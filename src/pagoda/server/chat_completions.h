// POST /v1/chat/completions: messages rendered with the model's chat
// template, answered as one response or a stream of server-sent events.
#pragma once

#include <memory>

#include <nlohmann/json.hpp>

#include "pagoda/server/http/http_server.h"
#include "pagoda/server/serving_context.h"

namespace pagoda::server {

// `ordered_body` is `body` parsed keeping key order (for the template).
void ServeChatCompletions(const ServingContext& ctx, const nlohmann::json& body,
                          const nlohmann::ordered_json& ordered_body, const std::shared_ptr<http::Responder>& responder);

}  // namespace pagoda::server
