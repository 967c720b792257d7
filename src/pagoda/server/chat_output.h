// A chat choice's output text split into what the response carries:
// reasoning (with a reasoning parser), content, and tool calls (with
// tool_choice auto and the server's parser, or "required"/named, whose
// output the grammar forced). ChatDeltas turns successive splits of a
// growing text into the stream's deltas: each part's growth, and for each
// call its id, type and name first, then its arguments in fragments, as
// OpenAI streams them.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "pagoda/server/reasoning_parser.h"
#include "pagoda/server/tool_call_parser.h"
#include "pagoda/server/tool_request.h"

namespace pagoda::server {

struct ChatOutputParts {
  std::optional<std::string> reasoning;  // set when the reasoning parser found some
  std::string content;
  std::vector<ParsedToolCall> calls;
};

class ChatOutputParser {
 public:
  // `reasoning` and `auto_tools` may be null (no such parser on the server).
  // `reasoning_closed`: the prompt ended the reasoning, so the output has none.
  // `include_reasoning` false (vLLM's field): the reasoning is split off the
  // answer but not returned.
  ChatOutputParser(const ReasoningParser* reasoning, const ToolCallParser* auto_tools, const ToolRequest& tools,
                   bool reasoning_closed = false, bool include_reasoning = true);

  ChatOutputParts Parse(std::string_view text, bool final) const;
  // The response is a tools answer: finish_reason "tool_calls" (or the
  // legacy "function_call") when it holds calls.
  bool calls_finish() const { return tools_.choice == ToolChoice::kAuto || tools_.choice == ToolChoice::kRequired; }
  bool legacy_functions() const { return tools_.legacy_functions; }
  bool has_reasoning_parser() const { return reasoning_ != nullptr; }

 private:
  const ReasoningParser* reasoning_;
  bool reasoning_closed_;
  bool include_reasoning_;
  std::unique_ptr<ToolCallParser> named_;  // tool_choice names a function
  const ToolCallParser* calls_;  // null: the answer is all content
  ToolRequest tools_;
};

// One call as the response carries it, id included.
nlohmann::json ToolCallJson(const ParsedToolCall& call, const std::string& id);

class ChatDeltas {
 public:
  // The delta that takes the sent parts to `parts` (an empty object when
  // nothing grew). Parts that do not extend what was sent (a final parse
  // that undid a call) send nothing more.
  nlohmann::json Next(const ChatOutputParts& parts);
  // The ids of the calls sent so far.
  const std::vector<std::string>& call_ids() const { return call_ids_; }

 private:
  std::string reasoning_sent_;
  std::string content_sent_;
  std::vector<std::string> call_ids_;  // one per call whose name was sent
  std::vector<std::string> arguments_sent_;
};

// "chatcmpl-tool-" and 32 random hex digits, as vLLM's call ids.
std::string NewToolCallId();

}  // namespace pagoda::server
