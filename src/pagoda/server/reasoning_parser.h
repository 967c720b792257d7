// Reasoning in a model's output, as vLLM's --reasoning-parser names it:
//   deepseek_r1  the output is reasoning up to </think> (the template opens
//                <think> in the prompt; a <think> the model writes is dropped);
//                with no </think> at all, the whole output is reasoning
//   qwen3        reasoning only when the output opens with <think>, up to
//                </think>; otherwise (thinking disabled) the output is content
// Like the tool-call parsers, a parse of unfinished text reports only what
// cannot change, so that streaming can send the growth of each part.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "pagoda/base/status.h"

namespace pagoda::server {

struct SplitReasoning {
  std::string reasoning;
  std::string content;      // the answer, after the reasoning
  bool reasoning_ended = false;  // content may follow (false: the answer has not begun)
  bool had_reasoning = false;    // the output holds reasoning (else reasoning is null)
};

class ReasoningParser {
 public:
  virtual ~ReasoningParser() = default;
  virtual SplitReasoning Split(std::string_view text, bool final) const = 0;
  // The markers around the reasoning, for the engine to start a grammar
  // after the end one.
  static constexpr std::string_view kStart = "<think>";
  static constexpr std::string_view kEnd = "</think>";
};

// The prompt closed the reasoning already: its last marker is the end one
// (a template that turns thinking off writes both). Then the output is all
// answer; the engine's grammars follow the same rule
// (EngineCore::ReasoningEndToAwait).
bool ReasoningClosedIn(std::string_view prompt);

// INVALID_ARGUMENT naming the parsers there are for an unknown name.
StatusOr<std::unique_ptr<ReasoningParser>> MakeReasoningParser(std::string_view name);
const std::vector<std::string>& ReasoningParserNames();

}  // namespace pagoda::server
