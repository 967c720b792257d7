// The tool-call formats whose calls are JSON objects: hermes, llama3_json
// and mistral (tool_call_parser.h describes each).
#pragma once

#include "pagoda/server/tool_call_parser.h"

namespace pagoda::server {

class HermesToolCallParser : public ToolCallParser {
 public:
  ParsedToolOutput Parse(std::string_view text, bool final) const override;
};

class Llama3JsonToolCallParser : public ToolCallParser {
 public:
  ParsedToolOutput Parse(std::string_view text, bool final) const override;
};

// The output of tool_choice "required": a JSON array of {"name": ...,
// "parameters": {...}} that the grammar forced, as vLLM's.
class RequiredToolCallParser : public ToolCallParser {
 public:
  ParsedToolOutput Parse(std::string_view text, bool final) const override;
};

class MistralToolCallParser : public ToolCallParser {
 public:
  ParsedToolOutput Parse(std::string_view text, bool final) const override;
  bool NeedsSpecialTokens() const override { return true; }
};

}  // namespace pagoda::server
