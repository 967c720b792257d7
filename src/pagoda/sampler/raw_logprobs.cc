#include "pagoda/sampler/raw_logprobs.h"

#include <algorithm>
#include <cmath>

#include "pagoda/base/check.h"

namespace pagoda {
namespace {

// Orders (logit, id) most likely first, the lower id first on ties.
bool MoreLikely(const std::pair<float, int32_t>& a, const std::pair<float, int32_t>& b) {
  return a.first > b.first || (a.first == b.first && a.second < b.second);
}

}  // namespace

void RawLogprobs::Reset(std::span<const float> row) {
  PAGODA_CHECK(!row.empty());
  row_ = row;
  const float max_logit = rows_.RowMax(row);
  log_normalizer_ = max_logit + std::log(rows_.SumExp(row, max_logit));
}

float RawLogprobs::Logprob(int32_t token_id) const {
  PAGODA_CHECK(token_id >= 0 && static_cast<size_t>(token_id) < row_.size());
  return static_cast<float>(row_[token_id] - log_normalizer_);
}

int32_t RawLogprobs::Rank(int32_t token_id) const {
  PAGODA_CHECK(token_id >= 0 && static_cast<size_t>(token_id) < row_.size());
  const float x = row_[token_id];
  return static_cast<int32_t>(std::count_if(row_.begin(), row_.end(), [x](float y) { return y >= x; }));
}

void RawLogprobs::TopN(int32_t n, std::vector<TokenLogprob>& out) {
  out.clear();
  const size_t keep = std::min(static_cast<size_t>(std::max(n, 0)), row_.size());
  if (keep == 0) return;
  // A heap of the best `keep` so far, worst on top: one pass, no vocab copy.
  heap_.clear();
  for (size_t i = 0; i < keep; ++i) heap_.emplace_back(row_[i], static_cast<int32_t>(i));
  std::make_heap(heap_.begin(), heap_.end(), MoreLikely);
  float worst = heap_.front().first;
  for (size_t i = keep; i < row_.size(); ++i) {
    if (!(row_[i] > worst)) continue;  // a tie loses too: ids only grow
    std::pop_heap(heap_.begin(), heap_.end(), MoreLikely);
    heap_.back() = {row_[i], static_cast<int32_t>(i)};
    std::push_heap(heap_.begin(), heap_.end(), MoreLikely);
    worst = heap_.front().first;
  }
  std::sort_heap(heap_.begin(), heap_.end(), MoreLikely);
  for (const auto& [logit, id] : heap_) out.push_back({id, static_cast<float>(logit - log_normalizer_)});
}

}  // namespace pagoda
