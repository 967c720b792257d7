// Picks the next token from a row of logits: greedy at temperature 0,
// otherwise temperature, top-k and top-p (in vLLM's order) and a draw from a
// per-request seeded generator, so a seed reproduces the same tokens.
#pragma once

#include <cstdint>
#include <optional>
#include <random>
#include <span>
#include <vector>

#include "pagoda/base/status.h"

namespace pagoda {

struct SamplingOptions {
  float temperature = 1.0f;  // 0 = greedy
  float top_p = 1.0f;        // (0, 1]
  int32_t top_k = 0;         // 0 or -1 = all tokens
  std::optional<uint64_t> seed;

  Status Validate() const;
};

class Sampler {
 public:
  explicit Sampler(const SamplingOptions& options);

  int32_t Sample(std::span<const float> logits);

 private:
  SamplingOptions options_;
  std::mt19937_64 rng_;
  std::vector<std::pair<float, int32_t>> candidates_;  // reused across calls
};

// Index of the largest logit; the lowest id wins a tie.
int32_t Argmax(std::span<const float> logits);

}  // namespace pagoda
