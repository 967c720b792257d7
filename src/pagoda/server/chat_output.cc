#include "pagoda/server/chat_output.h"

#include "pagoda/server/json_tool_calls.h"
#include "pagoda/server/responses.h"

namespace pagoda::server {
namespace {

// The named function's output is its arguments, whole.
class NamedToolCallParser : public ToolCallParser {
 public:
  explicit NamedToolCallParser(std::string name) : name_(std::move(name)) {}
  ParsedToolOutput Parse(std::string_view text, bool) const override {
    return ParsedToolOutput{"", {ParsedToolCall{name_, std::string(text)}}};
  }

 private:
  std::string name_;
};

// What `now` adds to `sent`, when it extends it; `sent` becomes `now`.
std::optional<std::string> Grow(const std::string& now, std::string& sent) {
  if (now.size() <= sent.size() || !now.starts_with(sent)) return std::nullopt;
  std::string growth = now.substr(sent.size());
  sent = now;
  return growth;
}

}  // namespace

ChatOutputParser::ChatOutputParser(const ReasoningParser* reasoning, const ToolCallParser* auto_tools,
                                   const ToolRequest& tools, bool reasoning_closed, bool include_reasoning)
    : reasoning_(reasoning),
      reasoning_closed_(reasoning_closed),
      include_reasoning_(include_reasoning),
      calls_(nullptr),
      tools_(tools) {
  static const RequiredToolCallParser kRequired;
  switch (tools.choice) {
    case ToolChoice::kNone: break;
    case ToolChoice::kAuto: calls_ = auto_tools; break;
    case ToolChoice::kRequired: calls_ = &kRequired; break;
    case ToolChoice::kNamed: named_ = std::make_unique<NamedToolCallParser>(tools.function); calls_ = named_.get(); break;
  }
}

ChatOutputParts ChatOutputParser::Parse(std::string_view text, bool final) const {
  ChatOutputParts out;
  std::string answer(text);
  if (reasoning_ != nullptr && !reasoning_closed_) {
    SplitReasoning split = reasoning_->Split(text, final);
    if (split.had_reasoning && include_reasoning_) out.reasoning = std::move(split.reasoning);
    if (!split.reasoning_ended) return out;
    answer = std::move(split.content);
  }
  if (calls_ == nullptr) {
    out.content = std::move(answer);
    return out;
  }
  ParsedToolOutput parsed = calls_->Parse(answer, final);
  out.content = std::move(parsed.content);
  out.calls = std::move(parsed.calls);
  if (!tools_.parallel && out.calls.size() > 1) out.calls.resize(1);
  return out;
}

nlohmann::json ToolCallJson(const ParsedToolCall& call, const std::string& id) {
  return {{"id", id}, {"type", "function"}, {"function", {{"name", call.name}, {"arguments", call.arguments}}}};
}

std::string NewToolCallId() { return NewRequestId("chatcmpl-tool"); }

nlohmann::json ChatDeltas::Next(const ChatOutputParts& parts) {
  nlohmann::json delta = nlohmann::json::object();
  if (parts.reasoning) {
    if (auto grown = Grow(*parts.reasoning, reasoning_sent_)) delta["reasoning_content"] = std::move(*grown);
  }
  if (auto grown = Grow(parts.content, content_sent_)) delta["content"] = std::move(*grown);
  nlohmann::json calls = nlohmann::json::array();
  for (size_t i = 0; i < parts.calls.size(); ++i) {
    const ParsedToolCall& call = parts.calls[i];
    // Calls are sent in order, each once its name is whole: first its id,
    // type and name (with the arguments so far), then argument fragments.
    if (i == call_ids_.size()) {
      if (call.name.empty()) break;
      call_ids_.push_back(NewToolCallId());
      arguments_sent_.push_back(call.arguments);
      calls.push_back({{"index", i},
                       {"id", call_ids_[i]},
                       {"type", "function"},
                       {"function", {{"name", call.name}, {"arguments", call.arguments}}}});
    } else if (auto grown = Grow(call.arguments, arguments_sent_[i])) {
      calls.push_back({{"index", i}, {"function", {{"arguments", std::move(*grown)}}}});
    }
  }
  if (!calls.empty()) delta["tool_calls"] = std::move(calls);
  return delta;
}

}  // namespace pagoda::server
