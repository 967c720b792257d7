// Perplexity over non-overlapping windows, computed the way llama.cpp's
// perplexity tool does so the two can be compared: each window of ctx tokens
// is evaluated from an empty cache, and only the predictions made from the
// second half of the window are scored (every scored token then has at least
// ctx/2 tokens of context).
//
// Each window is an ordinary request to the engine, asking for its prompt
// logprobs (which never read the prefix cache), so the windows are batched
// like any other requests.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <vector>

#include "pagoda/base/status.h"

namespace pagoda {

class Engine;

struct PerplexityOptions {
  int64_t ctx = 512;
  // When set, replaces each window's first token, as llama.cpp does for models that add BOS.
  std::optional<int32_t> bos_token;
  // Called after each window, in order, with its index and the running perplexity.
  std::function<void(int64_t window, double running_ppl)> on_window;
};

struct PerplexityResult {
  double perplexity = 0;
  double total_nll = 0;
  int64_t scored_tokens = 0;
  std::vector<double> window_nll;  // summed negative log-likelihood per window
};

// Scores floor(tokens.size() / ctx) windows; fails if there is not even one.
// The engine's max_model_len must exceed ctx.
StatusOr<PerplexityResult> ComputePerplexity(Engine& engine, std::span<const int32_t> tokens,
                                             const PerplexityOptions& options);

}  // namespace pagoda
