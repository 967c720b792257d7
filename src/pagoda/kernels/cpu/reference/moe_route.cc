// Mixture-of-experts routing: softmax over the router's logits, then top-k.
#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

#include "pagoda/base/check.h"
#include "pagoda/kernels/cpu/reference/reference.h"

namespace pagoda::kernels::reference {

void MoeRoute(const float* logits, int64_t tokens, int64_t num_experts, int64_t k, bool normalize,
              int32_t* expert_ids, float* weights) {
  PAGODA_CHECK(k > 0 && k <= num_experts);
  std::vector<float> probs(static_cast<size_t>(num_experts));
  std::vector<int32_t> order(static_cast<size_t>(num_experts));
  for (int64_t t = 0; t < tokens; ++t) {
    const float* row = logits + t * num_experts;
    const float mx = *std::max_element(row, row + num_experts);
    float sum = 0.0f;
    for (int64_t e = 0; e < num_experts; ++e) sum += probs[e] = std::exp(row[e] - mx);
    for (float& p : probs) p /= sum;
    std::iota(order.begin(), order.end(), 0);
    // Stable, so equal probabilities keep the lower expert id first.
    std::stable_sort(order.begin(), order.end(), [&](int32_t a, int32_t b) { return probs[a] > probs[b]; });
    float chosen = 0.0f;
    for (int64_t j = 0; j < k; ++j) chosen += probs[order[j]];
    for (int64_t j = 0; j < k; ++j) {
      expert_ids[t * k + j] = order[j];
      weights[t * k + j] = normalize ? probs[order[j]] / chosen : probs[order[j]];
    }
  }
}

}  // namespace pagoda::kernels::reference
