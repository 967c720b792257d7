#include "pagoda/sampler/sampler.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace pagoda {

Status SamplingOptions::Validate() const {
  if (!(temperature >= 0.0f) || !std::isfinite(temperature)) {
    return InvalidArgumentError(fmt::format("temperature must be >= 0, got {}", temperature));
  }
  if (!(top_p > 0.0f && top_p <= 1.0f)) return InvalidArgumentError(fmt::format("top_p must be in (0, 1], got {}", top_p));
  if (top_k < -1) return InvalidArgumentError(fmt::format("top_k must be -1, 0 or positive, got {}", top_k));
  return Status::Ok();
}

int32_t Argmax(std::span<const float> logits) {
  return static_cast<int32_t>(std::max_element(logits.begin(), logits.end()) - logits.begin());
}

Sampler::Sampler(const SamplingOptions& options)
    : options_(options), rng_(options.seed ? *options.seed : std::random_device{}()) {}

int32_t Sampler::Sample(std::span<const float> logits) {
  if (options_.temperature == 0.0f) return Argmax(logits);

  candidates_.clear();
  for (size_t i = 0; i < logits.size(); ++i) {
    candidates_.emplace_back(logits[i] / options_.temperature, static_cast<int32_t>(i));
  }
  // Highest first; ties by id so the order never depends on the sort.
  auto by_logit = [](const auto& a, const auto& b) { return a.first > b.first || (a.first == b.first && a.second < b.second); };
  size_t keep = candidates_.size();
  if (options_.top_k > 0) keep = std::min<size_t>(keep, options_.top_k);
  std::partial_sort(candidates_.begin(), candidates_.begin() + keep, candidates_.end(), by_logit);
  candidates_.resize(keep);

  const float max_logit = candidates_.front().first;
  double total = 0;
  for (auto& c : candidates_) {
    c.first = std::exp(c.first - max_logit);
    total += c.first;
  }
  if (options_.top_p < 1.0f) {
    // Keep the smallest prefix whose probability reaches top_p (at least one token).
    double cumulative = 0;
    size_t n = 0;
    while (n < candidates_.size()) {
      cumulative += candidates_[n++].first / total;
      if (cumulative >= options_.top_p) break;
    }
    candidates_.resize(n);
    total = 0;
    for (const auto& c : candidates_) total += c.first;
  }
  const double u = std::uniform_real_distribution<double>(0.0, total)(rng_);
  double acc = 0;
  for (const auto& c : candidates_) {
    acc += c.first;
    if (u < acc) return c.second;
  }
  return candidates_.back().second;
}

}  // namespace pagoda
