// What an endpoint needs to serve a request: the engine, the name the
// responses carry, the limits requests are checked against, the chat
// template, and the registry of generations in flight.
#pragma once

#include <string>

#include "pagoda/chat_template/chat_template.h"
#include "pagoda/engine/engine.h"
#include "pagoda/server/job_registry.h"
#include "pagoda/server/reasoning_parser.h"
#include "pagoda/server/sampling_request.h"
#include "pagoda/server/tool_call_parser.h"

namespace pagoda::server {

struct ServingContext {
  Engine* engine = nullptr;
  std::string model_name;
  ServingLimits limits;
  const chat_template::ChatTemplate* chat_template = nullptr;  // null: the model has none
  JobRegistry* jobs = nullptr;  // where generations in flight are registered
  // tool_choice "auto" parses calls with this (null: --enable-auto-tool-choice is off).
  const ToolCallParser* auto_tool_parser = nullptr;
  const ReasoningParser* reasoning_parser = nullptr;  // null: no --reasoning-parser
};

}  // namespace pagoda::server
