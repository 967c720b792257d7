// Random sampling from a processed row: top-k, then top-p (vLLM's order and
// tie rules), then one draw. Nothing is fully sorted: with both off the draw
// scans the row; top-k is a selection; top-p is a selection weighted by
// probability mass, expected linear time however flat the distribution.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "pagoda/kernels/cpu/row_ops.h"

namespace pagoda {

struct Candidate {
  float logit;
  int32_t id;
  float weight;  // exp(logit - max logit): unnormalized probability
};

class TopKTopPSampler {
 public:
  TopKTopPSampler(int32_t vocab_size, const kernels::cpu::RowOps& rows);

  // The tokens that survive, with their weights, in no particular order.
  // top_k <= 0 and top_p == 1 are off. Top-k keeps every token tied with the
  // k-th largest logit; top-p keeps, most likely first (the lower id first
  // on ties), each token while the mass before it is below top_p of the
  // (top-k) total. Tokens at -inf never survive. The span lives until the
  // next call.
  std::span<const Candidate> Truncate(std::span<const float> row, int32_t top_k, float top_p);

  // Truncates, then picks a survivor with probability weight / sum(weights),
  // using `uniform` in [0, 1). Returns -1 when every token is at -inf.
  int32_t Sample(std::span<const float> row, int32_t top_k, float top_p, double uniform);

 private:
  int32_t SampleWholeRow(std::span<const float> row, double uniform);
  float KthLargest(std::span<const float> row, size_t k);
  void ApplyTopP(float top_p);

  const kernels::cpu::RowOps& rows_;
  std::vector<Candidate> candidates_;
  std::vector<float> weights_;  // per token, for the whole-row draw and the top-p prefilter
  std::vector<float> heap_;     // top-k selection
  double total_weight_ = 0;
};

}  // namespace pagoda
