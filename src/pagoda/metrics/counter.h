// Counter: a float that only goes up (prometheus_client keeps counters as
// floats too, so they render as "5.0").
#pragma once

#include <atomic>
#include <memory>
#include <string>
#include <vector>

#include "pagoda/metrics/family.h"

namespace pagoda::metrics {

class Counter {
 public:
  // `amount` must not be negative.
  void Inc(double amount = 1);
  double Value() const { return value_.load(std::memory_order_relaxed); }

 private:
  std::atomic<double> value_{0};
};

// Exposed as `<name>_total`, as prometheus_client does: a name given with a
// `_total` suffix loses it first, so "vllm:prompt_tokens" and
// "vllm:prompt_tokens_total" both render as `vllm:prompt_tokens_total`.
// (prometheus_client also writes `<name>_created` samples; Pagoda leaves
// them out: they are optional and no dashboard reads them.)
class CounterFamily final : public LabeledFamily<Counter> {
 public:
  CounterFamily(std::string name, std::string help, std::vector<std::string> label_names);
  void Render(std::string& out) const override;

 private:
  std::unique_ptr<Counter> NewChild() const override { return std::make_unique<Counter>(); }
};

}  // namespace pagoda::metrics
