// A step's token budget sized from measured step times: with a latency
// target (--step-latency-target-ms), a step computes as many tokens as fit
// under it, so long prompts advance in chunks as large as the target
// allows on whatever CPU runs them, while each step (and so every running
// decode's next token) stays near the target.
//
// Step time is modelled as fixed + per_token * tokens (fixed >= 0), fitted
// by least squares over recent steps with exponentially decaying weights. A ratio of
// time to tokens alone would not do: a decode step costs far more per token
// than a prompt chunk (a step reads the weights once for all its rows), so
// after a run of decodes it would starve the next prompt.
#pragma once

#include <cstdint>

namespace pagoda {

class StepTokenBudget {
 public:
  struct Options {
    double target_seconds = 0.2;
    int32_t initial_tokens = 256;  // before any step was measured
    int32_t min_tokens = 16;
    int32_t max_tokens = 2048;
    double decay = 0.9;  // weight left to past steps at each new one
  };

  explicit StepTokenBudget(Options options);

  // A step that computed `tokens` tokens took `seconds`.
  void Observe(int64_t tokens, double seconds);

  // Tokens the next step may compute, in [min_tokens, max_tokens].
  int32_t Budget() const { return budget_; }
  // The fitted model (0 until a step was measured).
  double per_token_seconds() const { return per_token_; }
  double fixed_seconds() const { return fixed_; }

 private:
  void Refit();

  Options options_;
  // Decayed weighted sums of 1, x, y, x^2 and xy (x: tokens, y: seconds).
  double w_ = 0, sx_ = 0, sy_ = 0, sxx_ = 0, sxy_ = 0;
  double slope_ = 0;  // the last fit while step sizes differed (0: none yet)
  double per_token_ = 0;
  double fixed_ = 0;
  int32_t budget_;
};

}  // namespace pagoda
