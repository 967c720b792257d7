#include "pagoda/metrics/histogram.h"

#include <algorithm>
#include <limits>

#include "pagoda/metrics/exposition.h"

namespace pagoda::metrics {
namespace {

std::vector<double> WithInfBucket(std::vector<double> buckets) {
  PAGODA_CHECK_MSG(std::is_sorted(buckets.begin(), buckets.end()), "histogram buckets must be ascending");
  constexpr double kInf = std::numeric_limits<double>::infinity();
  if (buckets.empty() || buckets.back() != kInf) buckets.push_back(kInf);
  PAGODA_CHECK_MSG(buckets.size() >= 2, "a histogram needs at least two buckets, +Inf included");
  return buckets;
}

}  // namespace

Histogram::Histogram(const std::vector<double>& upper_bounds)
    : upper_bounds_(upper_bounds), bucket_counts_(upper_bounds.size(), 0) {}

void Histogram::Observe(double value) {
  std::lock_guard lock(mu_);
  sum_ += value;
  // The first bound not below the value, as prometheus_client searches; NaN
  // matches no bucket (and turns the sum into NaN), as there.
  for (size_t i = 0; i < upper_bounds_.size(); ++i) {
    if (value <= upper_bounds_[i]) {
      ++bucket_counts_[i];
      break;
    }
  }
}

Histogram::Snapshot Histogram::Read() const {
  std::lock_guard lock(mu_);
  return Snapshot{bucket_counts_, sum_};
}

HistogramFamily::HistogramFamily(std::string name, std::string help, std::vector<std::string> label_names,
                                 std::vector<double> buckets)
    : LabeledFamily(std::move(name), std::move(help), std::move(label_names)),
      upper_bounds_(WithInfBucket(std::move(buckets))) {
  PAGODA_CHECK_MSG(std::find(this->label_names().begin(), this->label_names().end(), "le") == this->label_names().end(),
                   "\"le\" is reserved for histogram buckets");
  for (double bound : upper_bounds_) le_values_.push_back(FormatValue(bound));
}

void HistogramFamily::Render(std::string& out) const {
  RenderHeader(out, name(), "histogram");
  const std::string bucket_name = name() + "_bucket";
  const std::string count_name = name() + "_count";
  const std::string sum_name = name() + "_sum";
  ForEachChild([&](const std::vector<std::string>& label_values, const Histogram& child) {
    const Histogram::Snapshot snapshot = child.Read();
    uint64_t cumulative = 0;
    for (size_t i = 0; i < upper_bounds_.size(); ++i) {
      cumulative += snapshot.bucket_counts[i];
      RenderSample(out, bucket_name, label_values, le_values_[i], static_cast<double>(cumulative));
    }
    RenderSample(out, count_name, label_values, std::nullopt, static_cast<double>(cumulative));
    // prometheus_client omits the sum when a bucket is negative: the sum of
    // observations that may be negative is not a counter.
    if (upper_bounds_.front() >= 0) RenderSample(out, sum_name, label_values, std::nullopt, snapshot.sum);
  });
}

}  // namespace pagoda::metrics
