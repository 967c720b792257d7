#include "pagoda/engine/perplexity.h"

#include <fmt/format.h>

#include <cmath>
#include <memory>

#include "pagoda/engine/engine.h"

namespace pagoda {
namespace {

// Summed -logprob of the window's tokens from position `first` + 1 on:
// row j of the logits predicts token j + 1, and rows ctx/2 .. ctx-2 are scored.
StatusOr<double> WindowNll(const RequestOutput& out, int64_t first) {
  if (!out.prompt_logprobs || out.prompt_logprobs->size() != out.prompt_token_ids.size()) {
    return InternalError(fmt::format("request {} came back without its prompt logprobs", out.request_id));
  }
  double nll = 0;
  for (size_t p = static_cast<size_t>(first) + 1; p < out.prompt_token_ids.size(); ++p) {
    const std::optional<PositionLogprobs>& position = (*out.prompt_logprobs)[p];
    if (!position || position->empty()) return InternalError(fmt::format("prompt position {} has no logprob", p));
    nll -= position->front().logprob;  // the actual token comes first
  }
  return nll;
}

}  // namespace

StatusOr<PerplexityResult> ComputePerplexity(Engine& engine, std::span<const int32_t> tokens,
                                             const PerplexityOptions& options) {
  const int64_t ctx = options.ctx;
  if (ctx < 4) return InvalidArgumentError(fmt::format("context {} is too small for perplexity", ctx));
  const int64_t num_windows = static_cast<int64_t>(tokens.size()) / ctx;
  if (num_windows == 0) {
    return InvalidArgumentError(fmt::format("need at least {} tokens for one window, have {}", ctx, tokens.size()));
  }
  SamplingParams params;
  params.prompt_logprobs = 0;  // the actual token's logprob only
  params.max_tokens = 1;       // the engine samples a token; it is not scored
  params.temperature = 0;
  params.output_kind = OutputKind::kFinalOnly;

  std::vector<std::shared_ptr<OutputStream>> streams;
  for (int64_t w = 0; w < num_windows; ++w) {
    std::vector<int32_t> window(tokens.begin() + w * ctx, tokens.begin() + (w + 1) * ctx);
    if (options.bos_token) window[0] = *options.bos_token;
    auto stream = engine.AddRequest(fmt::format("perplexity-{}", w), std::move(window), params);
    if (!stream.ok()) {
      for (int64_t i = 0; i < w; ++i) engine.Abort(fmt::format("perplexity-{}", i));
      return stream.status();
    }
    streams.push_back(std::move(*stream));
  }

  const int64_t first = ctx / 2;
  PerplexityResult result;
  for (int64_t w = 0; w < num_windows; ++w) {
    std::optional<RequestOutput> out;
    while (std::optional<RequestOutput> next = streams[w]->Next()) out = std::move(next);
    if (!out || !out->finished) return InternalError(fmt::format("window {} did not finish", w));
    PAGODA_ASSIGN_OR_RETURN(const double nll, WindowNll(*out, first));
    result.window_nll.push_back(nll);
    result.total_nll += nll;
    result.scored_tokens += ctx - 1 - first;
    if (options.on_window) options.on_window(w, std::exp(result.total_nll / result.scored_tokens));
  }
  result.perplexity = std::exp(result.total_nll / result.scored_tokens);
  return result;
}

}  // namespace pagoda
