#include "pagoda/sampler/top_k_top_p.h"

#include <algorithm>
#include <functional>
#include <limits>

#include "pagoda/base/check.h"
#include "pagoda/kernels/fast_exp.h"

namespace pagoda {
namespace {

constexpr float kNegInf = -std::numeric_limits<float>::infinity();

// Most likely first; ids break ties so the order is total and the kept set
// never depends on the selection algorithm.
bool MoreLikely(const Candidate& a, const Candidate& b) {
  return a.logit > b.logit || (a.logit == b.logit && a.id < b.id);
}

// Below this many candidates, top-p sorts instead of selecting.
constexpr size_t kSortBelow = 64;
// The whole-row draw sums blocks of this many weights before scanning one.
constexpr size_t kScanBlock = 512;

}  // namespace

TopKTopPSampler::TopKTopPSampler(int32_t vocab_size, const kernels::cpu::RowOps& rows)
    : rows_(rows), weights_(static_cast<size_t>(vocab_size)) {
  candidates_.reserve(static_cast<size_t>(vocab_size));
  heap_.reserve(static_cast<size_t>(vocab_size));
}

std::span<const Candidate> TopKTopPSampler::Truncate(std::span<const float> row, int32_t top_k, float top_p) {
  PAGODA_CHECK(!row.empty() && row.size() <= weights_.size());
  candidates_.clear();
  const float max_logit = rows_.RowMax(row);
  if (max_logit == kNegInf) return {};
  auto add = [&](size_t i, float weight) { candidates_.push_back({row[i], static_cast<int32_t>(i), weight}); };

  if (top_k > 0 && static_cast<size_t>(top_k) < row.size()) {
    // vLLM masks only logits strictly below the k-th largest, so ties with
    // it survive.
    const float threshold = KthLargest(row, static_cast<size_t>(top_k));
    total_weight_ = 0;
    for (size_t i = 0; i < row.size(); ++i) {
      if (row[i] >= threshold && row[i] != kNegInf) {
        add(i, kernels::FastExp(row[i] - max_logit));
        total_weight_ += candidates_.back().weight;
      }
    }
  } else {
    total_weight_ = rows_.ExpAndSum(row, max_logit, std::span(weights_).first(row.size()));
    // A token of weight w has at most V * w of mass at or below it, so when
    // that is within the (1 - top_p) tail top-p surely drops it: skipping
    // such tokens here changes nothing but the work.
    const double cutoff = top_p < 1.0f ? (1.0 - top_p) * total_weight_ / static_cast<double>(row.size()) : 0.0;
    for (size_t i = 0; i < row.size(); ++i) {
      if (weights_[i] > cutoff) add(i, weights_[i]);
    }
  }
  if (top_p < 1.0f) ApplyTopP(top_p);
  return candidates_;
}

// One pass that keeps the k largest values in a min-heap: most values lose
// to the heap's minimum on a single compare.
float TopKTopPSampler::KthLargest(std::span<const float> row, size_t k) {
  heap_.assign(row.begin(), row.begin() + k);
  std::make_heap(heap_.begin(), heap_.end(), std::greater<float>());
  float smallest = heap_.front();
  for (size_t i = k; i < row.size(); ++i) {
    if (!(row[i] > smallest)) continue;
    std::pop_heap(heap_.begin(), heap_.end(), std::greater<float>());
    heap_.back() = row[i];
    std::push_heap(heap_.begin(), heap_.end(), std::greater<float>());
    smallest = heap_.front();
  }
  return smallest;
}

// Finds how many of the most likely candidates top-p keeps without sorting
// them: quickselect on the order MoreLikely, steered by probability mass.
void TopKTopPSampler::ApplyTopP(float top_p) {
  const double target = static_cast<double>(top_p) * total_weight_;
  // Invariant: [0, lo) are kept and more likely than the rest, with mass
  // `kept_mass`; the boundary lies in [lo, hi]; [hi, end) are dropped.
  size_t lo = 0;
  size_t hi = candidates_.size();
  double kept_mass = 0;
  while (hi - lo > kSortBelow && kept_mass < target) {
    // Median of three as the pivot, moved to the end of the range.
    const auto first = candidates_.begin() + lo;
    const auto middle = first + (hi - lo) / 2;
    const auto last = candidates_.begin() + (hi - 1);
    if (MoreLikely(*middle, *first)) std::iter_swap(middle, first);
    if (MoreLikely(*last, *first)) std::iter_swap(last, first);
    if (MoreLikely(*middle, *last)) std::iter_swap(middle, last);
    const Candidate pivot = *last;
    const auto split = std::partition(first, last, [&](const Candidate& c) { return MoreLikely(c, pivot); });
    std::iter_swap(split, last);
    const size_t mid = static_cast<size_t>(split - candidates_.begin());
    double upper_mass = 0;
    for (size_t i = lo; i < mid; ++i) upper_mass += candidates_[i].weight;
    if (kept_mass + upper_mass >= target) {
      hi = mid;  // the boundary is among the more likely part (or at mid)
    } else {
      kept_mass += upper_mass + candidates_[mid].weight;  // all of them and the pivot are kept
      lo = mid + 1;
    }
  }
  std::sort(candidates_.begin() + lo, candidates_.begin() + hi, MoreLikely);
  size_t kept = lo;
  for (; kept < hi && kept_mass < target; ++kept) kept_mass += candidates_[kept].weight;
  candidates_.resize(kept);
  total_weight_ = kept_mass;
}

int32_t TopKTopPSampler::Sample(std::span<const float> row, int32_t top_k, float top_p, double uniform) {
  const bool top_k_on = top_k > 0 && static_cast<size_t>(top_k) < row.size();
  if (!top_k_on && top_p >= 1.0f) return SampleWholeRow(row, uniform);
  const std::span<const Candidate> kept = Truncate(row, top_k, top_p);
  if (kept.empty()) return -1;
  const double threshold = uniform * total_weight_;
  double acc = 0;
  for (const Candidate& c : kept) {
    acc += c.weight;
    if (threshold < acc) return c.id;
  }
  return kept.back().id;  // rounding left the threshold at the very end
}

// Inverse-CDF draw over the whole row in id order, skipping whole blocks.
int32_t TopKTopPSampler::SampleWholeRow(std::span<const float> row, double uniform) {
  PAGODA_CHECK(!row.empty() && row.size() <= weights_.size());
  const float max_logit = rows_.RowMax(row);
  if (max_logit == kNegInf) return -1;
  const std::span<float> weights = std::span(weights_).first(row.size());
  const double threshold = uniform * rows_.ExpAndSum(row, max_logit, weights);
  double acc = 0;
  int32_t last_positive = -1;
  for (size_t start = 0; start < row.size(); start += kScanBlock) {
    const std::span<const float> block = weights.subspan(start, std::min(kScanBlock, row.size() - start));
    const double block_sum = rows_.SumRow(block);
    if (acc + block_sum <= threshold) {
      acc += block_sum;
      for (size_t i = block.size(); i-- > 0;) {
        if (block[i] > 0.0f) {
          last_positive = static_cast<int32_t>(start + i);
          break;
        }
      }
      continue;
    }
    for (size_t i = 0; i < block.size(); ++i) {
      acc += block[i];
      if (block[i] > 0.0f && threshold < acc) return static_cast<int32_t>(start + i);
      if (block[i] > 0.0f) last_positive = static_cast<int32_t>(start + i);
    }
  }
  return last_positive;  // rounding left the threshold at the very end
}

}  // namespace pagoda
