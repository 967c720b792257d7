// The offline API, shaped like vLLM's LLM class: build an engine, run a
// batch of prompts through it concurrently, get one RequestOutput per prompt
// in prompt order.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "pagoda/engine/engine.h"

namespace pagoda {

class LLM {
 public:
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

  Engine& engine() { return *engine_; }

 private:
  explicit LLM(std::unique_ptr<Engine> engine) : engine_(std::move(engine)) {}

  std::unique_ptr<Engine> engine_;
  int64_t next_request_ = 0;
};

}  // namespace pagoda
