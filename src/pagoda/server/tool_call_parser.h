// Tool calls in a model's output, in the format of its family, as vLLM's
// --tool-call-parser names them:
//   hermes       <tool_call>{"name": ..., "arguments": {...}}</tool_call>, repeated (Qwen2.5, Hermes)
//   llama3_json  {"name": ..., "parameters": {...}}, several joined by ";" (Llama 3.x)
//   mistral      [TOOL_CALLS][{"name": ..., "arguments": {...}}, ...] or [TOOL_CALLS]name[ARGS]{...}
//   pythonic     [get_weather(city="Paris"), other()] (Llama 3.2/4, ToolACE)
// A parser reads the text so far and says which part is the assistant's
// content and which calls it holds, so far. On unfinished text it only
// reports what cannot change: content stops before anything that may still
// turn out to be a call's markup, and a call's arguments are the prefix of
// its arguments' JSON text seen so far. Streaming sends the growth.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "pagoda/base/status.h"

namespace pagoda::server {

struct ParsedToolCall {
  std::string name;       // empty until the name is complete
  std::string arguments;  // JSON text of the arguments object (a prefix while unfinished)
};

struct ParsedToolOutput {
  std::string content;
  std::vector<ParsedToolCall> calls;
};

class ToolCallParser {
 public:
  virtual ~ToolCallParser() = default;
  // `final`: the text is the whole output. Then calls that do not parse
  // make the whole text content, with no calls, as vLLM's parsers do.
  virtual ParsedToolOutput Parse(std::string_view text, bool final) const = 0;
  // Whether the format needs special tokens kept in the text (mistral's
  // [TOOL_CALLS] is one).
  virtual bool NeedsSpecialTokens() const { return false; }
};

// INVALID_ARGUMENT naming the parsers there are for an unknown name.
StatusOr<std::unique_ptr<ToolCallParser>> MakeToolCallParser(std::string_view name);

// The parsers' names, for messages and --help.
const std::vector<std::string>& ToolCallParserNames();

// The longest suffix of `text` that is a proper prefix of `marker`: text
// that may still become the marker and so cannot be sent as content yet.
size_t MarkerPrefixSuffix(std::string_view text, std::string_view marker);

}  // namespace pagoda::server
