// The offline API, shaped like vLLM's LLM class: build an engine, run a
// batch of prompts through it concurrently, get one RequestOutput per prompt
// in prompt order.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "pagoda/engine/engine.h"

namespace pagoda {

// One prompt of a batch: text, which the engine tokenizes with the model's
// special tokens, or token ids used as given (vLLM's TokensPrompt). With
// both, the ids run and the text is what the output reports as its prompt
// (a rendered chat, tokenized without special tokens by the caller).
struct PromptInput {
  std::optional<std::string> text = std::nullopt;
  std::optional<std::vector<int32_t>> token_ids = std::nullopt;
  int32_t priority = 0;  // for the priority scheduling policy
};

class LLM {
 public:
  // Called on the generating thread as each request finishes, in the order
  // they finish (a progress bar). If it throws, the requests still running
  // are aborted and the exception propagates out of GenerateInputs.
  using FinishedCallback = std::function<void(const RequestOutput&)>;

  // Throws std::runtime_error with the status message when the engine
  // cannot be built (as vLLM's constructor raises); Create returns it.
  explicit LLM(const EngineConfig& config);
  static StatusOr<std::unique_ptr<LLM>> Create(const EngineConfig& config);

  // Runs every prompt to completion; throws std::invalid_argument when one
  // is refused (nothing is run then). Generate returns the Status instead.
  std::vector<RequestOutput> generate(const std::vector<std::string>& prompts, const SamplingParams& params);
  std::vector<RequestOutput> generate(const std::vector<std::string>& prompts,
                                      const std::vector<SamplingParams>& params);
  StatusOr<std::vector<RequestOutput>> Generate(const std::vector<std::string>& prompts,
                                                const std::vector<SamplingParams>& params);
  // The same for text or token prompts, with a callback per finished request.
  StatusOr<std::vector<RequestOutput>> GenerateInputs(const std::vector<PromptInput>& prompts,
                                                      const std::vector<SamplingParams>& params,
                                                      const FinishedCallback& on_finished = {});

  Engine& engine() { return *engine_; }

 private:
  explicit LLM(std::unique_ptr<Engine> engine) : engine_(std::move(engine)) {}

  StatusOr<std::shared_ptr<OutputStream>> Add(const PromptInput& prompt, SamplingParams params);

  std::unique_ptr<Engine> engine_;
  int64_t next_request_ = 0;
};

}  // namespace pagoda
