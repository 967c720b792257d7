#include "pagoda/runner/perplexity.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "pagoda/kv_blocks/block_pool.h"
#include "pagoda/runner/model_runner.h"

namespace pagoda {

double NegativeLogLikelihood(std::span<const float> logits, int32_t target) {
  const float max_logit = *std::max_element(logits.begin(), logits.end());
  double sum_exp = 0.0;
  for (float l : logits) sum_exp += std::exp(l - max_logit);
  return -(static_cast<double>(logits[target] - max_logit) - std::log(sum_exp));
}

StatusOr<PerplexityResult> ComputePerplexity(ModelRunner& runner, BlockPool& blocks, std::span<const int32_t> tokens,
                                             const PerplexityOptions& options) {
  const int64_t ctx = options.ctx;
  if (ctx < 4) return InvalidArgumentError(fmt::format("context {} is too small for perplexity", ctx));
  const int64_t num_windows = static_cast<int64_t>(tokens.size()) / ctx;
  if (num_windows == 0) {
    return InvalidArgumentError(fmt::format("need at least {} tokens for one window, have {}", ctx, tokens.size()));
  }
  const int64_t vocab = runner.vocab_size();
  const int64_t first = ctx / 2;
  PerplexityResult result;
  std::vector<int32_t> window(ctx);
  std::vector<int32_t> table;
  for (int64_t w = 0; w < num_windows; ++w) {
    std::copy_n(tokens.begin() + w * ctx, ctx, window.begin());
    if (options.bos_token) window[0] = *options.bos_token;
    PAGODA_RETURN_IF_ERROR(GrowBlockTable(blocks, table, ctx, runner.block_size()));
    const SequenceChunk chunk{window, 0, table, LogitsMode::kAll};
    std::span<const float> logits = runner.Execute({&chunk, 1});
    ReleaseBlockTable(blocks, table);

    double nll = 0;
    // Row j predicts token j + 1 of the window.
    for (int64_t j = first; j < ctx - 1; ++j) {
      nll += NegativeLogLikelihood(logits.subspan(j * vocab, vocab), window[j + 1]);
    }
    result.window_nll.push_back(nll);
    result.total_nll += nll;
    result.scored_tokens += ctx - 1 - first;
    if (options.on_window) options.on_window(w, std::exp(result.total_nll / result.scored_tokens));
  }
  result.perplexity = std::exp(result.total_nll / result.scored_tokens);
  return result;
}

}  // namespace pagoda
