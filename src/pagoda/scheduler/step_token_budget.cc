#include "pagoda/scheduler/step_token_budget.h"

#include <algorithm>
#include <cmath>

#include "pagoda/base/check.h"

namespace pagoda {
namespace {

// The slope is refitted only when the recent steps' sizes spread by at least
// this many tokens (standard deviation); steps of one size (a run of
// decodes) say nothing about it, and only move the fixed part.
constexpr double kMinTokenSpread = 4.0;

}  // namespace

StepTokenBudget::StepTokenBudget(Options options) : options_(options), budget_(options.initial_tokens) {
  PAGODA_CHECK(options_.target_seconds > 0 && options_.min_tokens >= 1 &&
               options_.min_tokens <= options_.max_tokens && options_.decay > 0 && options_.decay < 1);
  budget_ = std::clamp(budget_, options_.min_tokens, options_.max_tokens);
}

void StepTokenBudget::Observe(int64_t tokens, double seconds) {
  if (tokens <= 0 || !(seconds >= 0) || !std::isfinite(seconds)) return;
  const double x = static_cast<double>(tokens);
  const double d = options_.decay;
  w_ = w_ * d + 1;
  sx_ = sx_ * d + x;
  sy_ = sy_ * d + seconds;
  sxx_ = sxx_ * d + x * x;
  sxy_ = sxy_ * d + x * seconds;
  Refit();
}

void StepTokenBudget::Refit() {
  const double mean_x = sx_ / w_;
  const double mean_y = sy_ / w_;
  const double var_x = sxx_ / w_ - mean_x * mean_x;
  if (var_x >= kMinTokenSpread * kMinTokenSpread) {
    const double slope = (sxy_ / w_ - mean_x * mean_y) / var_x;
    if (slope > 0) slope_ = slope;
  }
  // The fixed part cannot be negative, so the per-token cost is at most the
  // recent steps' time per token: a slope fitted while an outlier (a first
  // step paging the weights in) still weighed is cut back to what the steps
  // since show, and the budget grows until their sizes differ enough to
  // refit it. With no slope yet, all time counts as per-token time, which
  // overstates a larger step's cost, so the first budgets err small.
  const double ratio = mean_y / mean_x;
  per_token_ = slope_ > 0 && slope_ < ratio ? slope_ : ratio;
  fixed_ = mean_y - per_token_ * mean_x;
  if (per_token_ <= 0) return;  // steps measured as taking no time: keep the budget
  const double fit = (options_.target_seconds - fixed_) / per_token_;
  budget_ = static_cast<int32_t>(std::clamp(std::floor(fit), static_cast<double>(options_.min_tokens),
                                            static_cast<double>(options_.max_tokens)));
}

}  // namespace pagoda
