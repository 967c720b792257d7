// Gauge: a float that is set, or moved up and down.
#pragma once

#include <atomic>
#include <memory>
#include <string>
#include <vector>

#include "pagoda/metrics/family.h"

namespace pagoda::metrics {

class Gauge {
 public:
  void Set(double value) { value_.store(value, std::memory_order_relaxed); }
  void Inc(double amount = 1) { value_.fetch_add(amount, std::memory_order_relaxed); }
  double Value() const { return value_.load(std::memory_order_relaxed); }

 private:
  std::atomic<double> value_{0};
};

// Also serves info metrics such as vllm:cache_config_info, which vLLM
// exposes as a gauge set to 1 with the information in its labels.
class GaugeFamily final : public LabeledFamily<Gauge> {
 public:
  GaugeFamily(std::string name, std::string help, std::vector<std::string> label_names);
  void Render(std::string& out) const override;

 private:
  std::unique_ptr<Gauge> NewChild() const override { return std::make_unique<Gauge>(); }
};

}  // namespace pagoda::metrics
