// Histogram: counts of observations per bucket, and their sum. Buckets are
// upper bounds, inclusive (a value equal to a bound falls in that bucket),
// and the last is always +Inf. Rendered as prometheus_client does: the
// cumulative `_bucket{le="..."}` samples, then `_count`, then `_sum`.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "pagoda/metrics/family.h"

namespace pagoda::metrics {

class Histogram {
 public:
  // `upper_bounds` (ascending, +Inf last) belongs to the family and outlives
  // the child.
  explicit Histogram(const std::vector<double>& upper_bounds);

  void Observe(double value);

  struct Snapshot {
    std::vector<uint64_t> bucket_counts;  // per bucket, not cumulative
    double sum = 0;
  };
  // The counts and sum of one moment, consistent with each other.
  Snapshot Read() const;

 private:
  const std::vector<double>& upper_bounds_;
  mutable std::mutex mu_;
  std::vector<uint64_t> bucket_counts_;
  double sum_ = 0;
};

class HistogramFamily final : public LabeledFamily<Histogram> {
 public:
  // `buckets` ascending; +Inf is appended when not already last. There must
  // then be at least two, and no label may be called "le".
  HistogramFamily(std::string name, std::string help, std::vector<std::string> label_names,
                  std::vector<double> buckets);
  const std::vector<double>& upper_bounds() const { return upper_bounds_; }
  void Render(std::string& out) const override;

 private:
  std::unique_ptr<Histogram> NewChild() const override { return std::make_unique<Histogram>(upper_bounds_); }

  std::vector<double> upper_bounds_;
  std::vector<std::string> le_values_;  // upper_bounds_ as the "le" label writes them
};

}  // namespace pagoda::metrics
