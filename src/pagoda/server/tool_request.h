// The tool-calling fields of a chat request: `tools`, `tool_choice`,
// `parallel_tool_calls`, and OpenAI's legacy `functions`/`function_call`
// (read as tools, answered in the legacy shape). tool_choice "required" or
// a named function becomes a JSON-schema constraint on the output, so the
// model can only write valid calls; "auto" needs the server's tool-call
// parser, as in vLLM.
#pragma once

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "pagoda/request/sampling_params.h"
#include "pagoda/server/field_reader.h"

namespace pagoda::server {

enum class ToolChoice { kNone, kAuto, kRequired, kNamed };

struct ToolRequest {
  ToolChoice choice = ToolChoice::kNone;
  std::string function;        // kNamed: the function the output calls
  bool parallel = true;        // false: at most one call
  bool legacy_functions = false;  // answer with message.function_call
  nlohmann::ordered_json tools;   // what the chat template sees (null: none)
};

// Reads the fields; `auto_tool_choice` says whether the server runs a
// tool-call parser (--enable-auto-tool-choice). "required" and named
// choices set p.structured_outputs (a 400 if the request has another
// constraint). Errors go to the reader.
std::optional<ToolRequest> ReadToolRequest(FieldReader& r, const nlohmann::ordered_json& ordered_body,
                                           bool auto_tool_choice, SamplingParams& p);

// The schema a "required" choice holds the output to: a non-empty array
// (of one call when not parallel) of {"name": <a tool>, "parameters":
// <its schema>}, as vLLM's.
nlohmann::ordered_json RequiredToolCallsSchema(const nlohmann::ordered_json& tools, bool parallel);

}  // namespace pagoda::server
