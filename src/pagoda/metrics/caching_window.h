// The prefix cache hit rate over the most recent requests, as vLLM's
// CachingMetrics computes it for its periodic stats log: each observation is
// one step's admitted requests with their queried and hit tokens; the oldest
// observations drop out while more than `max_recent_requests` requests
// remain (the newest always stays).
#pragma once

#include <cstdint>
#include <deque>
#include <optional>

namespace pagoda::metrics {

class CachingWindow {
 public:
  explicit CachingWindow(int64_t max_recent_requests = 1000) : max_recent_requests_(max_recent_requests) {}

  // A step that admitted no request changes nothing.
  void Observe(int64_t requests, int64_t queries, int64_t hits);

  // Hit tokens over queried tokens in the window (0 when nothing was
  // queried); nullopt before the first request.
  std::optional<double> HitRate() const;

 private:
  struct Observation {
    int64_t requests, queries, hits;
  };
  int64_t max_recent_requests_;
  std::deque<Observation> window_;
  int64_t requests_ = 0;
  int64_t queries_ = 0;
  int64_t hits_ = 0;
};

}  // namespace pagoda::metrics
