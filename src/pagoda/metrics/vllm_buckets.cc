#include "pagoda/metrics/vllm_buckets.h"

#include "pagoda/base/check.h"

namespace pagoda::metrics {

std::vector<double> RequestLatencyBuckets() {
  return {0.3,  0.5,  0.8,  1.0,  1.5,   2.0,   2.5,   5.0,   10.0,   15.0,  20.0,
          30.0, 40.0, 50.0, 60.0, 120.0, 240.0, 480.0, 960.0, 1920.0, 7680.0};
}

std::vector<double> TimeToFirstTokenBuckets() {
  return {0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1,  0.25,  0.5,   0.75,
          1.0,   2.5,   5.0,  7.5,  10.0, 20.0, 40.0, 80.0, 160.0, 640.0, 2560.0};
}

std::vector<double> InterTokenLatencyBuckets() {
  return {0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5, 10.0, 20.0, 40.0, 80.0};
}

std::vector<double> IterationTokensBuckets() {
  return {1, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384};
}

std::vector<double> RequestParamsNBuckets() { return {1, 2, 5, 10, 20}; }

std::vector<double> RequestNumPreemptionsBuckets() { return {1, 2, 3, 4, 5, 10, 20}; }

std::vector<double> Build125Buckets(int64_t max_value) {
  PAGODA_CHECK_MSG(max_value >= 1, "a 1-2-5 series needs max_value >= 1");
  std::vector<double> buckets;
  for (int64_t scale = 1;; scale *= 10) {
    for (int64_t mantissa : {1, 2, 5}) {
      const int64_t value = mantissa * scale;
      if (value > max_value) return buckets;
      buckets.push_back(static_cast<double>(value));
    }
  }
}

}  // namespace pagoda::metrics
