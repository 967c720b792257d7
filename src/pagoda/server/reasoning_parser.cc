#include "pagoda/server/reasoning_parser.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "pagoda/server/tool_call_parser.h"

namespace pagoda::server {
namespace {

constexpr size_t npos = std::string_view::npos;
constexpr std::string_view kStart = ReasoningParser::kStart;
constexpr std::string_view kEnd = ReasoningParser::kEnd;

// `text` is reasoning from its start, closed by </think> if that is there.
SplitReasoning SplitFromStart(std::string_view text, bool final) {
  SplitReasoning out;
  out.had_reasoning = true;
  const size_t end = text.find(kEnd);
  if (end == npos) {
    const size_t held = final ? 0 : MarkerPrefixSuffix(text, kEnd);
    out.reasoning = std::string(text.substr(0, text.size() - held));
    return out;
  }
  out.reasoning = std::string(text.substr(0, end));
  out.content = std::string(text.substr(end + kEnd.size()));
  out.reasoning_ended = true;
  return out;
}

class DeepSeekR1ReasoningParser : public ReasoningParser {
 public:
  SplitReasoning Split(std::string_view text, bool final) const override {
    // A <think> the model writes itself opens the reasoning; until the text
    // is longer than the marker it may still become one.
    if (!final && text.size() < kStart.size() && kStart.starts_with(text)) return SplitReasoning{"", "", false, true};
    if (text.starts_with(kStart)) text.remove_prefix(kStart.size());
    return SplitFromStart(text, final);
  }
};

class Qwen3ReasoningParser : public ReasoningParser {
 public:
  SplitReasoning Split(std::string_view text, bool final) const override {
    if (text.starts_with(kStart)) return SplitFromStart(text.substr(kStart.size()), final);
    if (!final && kStart.starts_with(text)) return SplitReasoning{};  // may still open with <think>
    return SplitReasoning{"", std::string(text), true, false};
  }
};

}  // namespace

bool ReasoningClosedIn(std::string_view prompt) {
  const size_t start = prompt.rfind(kStart);
  const size_t end = prompt.rfind(kEnd);
  return end != npos && (start == npos || end > start);
}

const std::vector<std::string>& ReasoningParserNames() {
  static const std::vector<std::string> names = {"deepseek_r1", "qwen3"};
  return names;
}

StatusOr<std::unique_ptr<ReasoningParser>> MakeReasoningParser(std::string_view name) {
  if (name == "deepseek_r1") return std::unique_ptr<ReasoningParser>(new DeepSeekR1ReasoningParser());
  if (name == "qwen3") return std::unique_ptr<ReasoningParser>(new Qwen3ReasoningParser());
  return InvalidArgumentError(fmt::format("unknown reasoning parser '{}': the parsers are {}", name,
                                          fmt::join(ReasoningParserNames(), ", ")));
}

}  // namespace pagoda::server
