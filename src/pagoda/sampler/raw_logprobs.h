// Log probabilities from a row of RAW logits (log_softmax before any logits
// processing), as vLLM V1 reports them by default (logprobs_mode
// "raw_logprobs").
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "pagoda/kernels/cpu/row_ops.h"

namespace pagoda {

struct TokenLogprob {
  int32_t token_id;
  float logprob;
};

class RawLogprobs {
 public:
  explicit RawLogprobs(const kernels::cpu::RowOps& rows) : rows_(rows) {}

  // Computes the row's log-normalizer; the row must outlive the queries.
  void Reset(std::span<const float> row);

  float Logprob(int32_t token_id) const;
  // vLLM's rank: how many tokens have a logprob >= this one's (1 = the best).
  int32_t Rank(int32_t token_id) const;
  // The n most likely tokens, best first, the lower id first on ties.
  void TopN(int32_t n, std::vector<TokenLogprob>& out);

 private:
  const kernels::cpu::RowOps& rows_;
  std::span<const float> row_;
  double log_normalizer_ = 0;  // logsumexp of the row
  std::vector<std::pair<float, int32_t>> heap_;  // reused by TopN
};

}  // namespace pagoda
