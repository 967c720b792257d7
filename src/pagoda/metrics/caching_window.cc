#include "pagoda/metrics/caching_window.h"

namespace pagoda::metrics {

void CachingWindow::Observe(int64_t requests, int64_t queries, int64_t hits) {
  // vLLM skips empty observations so that idle steps do not push useful
  // ones out of the window.
  if (requests == 0) return;
  window_.push_back({requests, queries, hits});
  requests_ += requests;
  queries_ += queries;
  hits_ += hits;
  while (window_.size() > 1 && requests_ > max_recent_requests_) {
    const Observation& oldest = window_.front();
    requests_ -= oldest.requests;
    queries_ -= oldest.queries;
    hits_ -= oldest.hits;
    window_.pop_front();
  }
}

std::optional<double> CachingWindow::HitRate() const {
  if (requests_ == 0) return std::nullopt;
  if (queries_ == 0) return 0.0;
  return static_cast<double>(hits_) / static_cast<double>(queries_);
}

}  // namespace pagoda::metrics
