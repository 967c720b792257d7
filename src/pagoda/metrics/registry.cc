#include "pagoda/metrics/registry.h"

namespace pagoda::metrics {

template <typename F>
F& Registry::Add(std::unique_ptr<F> family) {
  std::lock_guard lock(mu_);
  for (const auto& existing : families_) {
    PAGODA_CHECK_MSG(existing->name() != family->name(), "duplicate metric name");
  }
  F& added = *family;
  families_.push_back(std::move(family));
  return added;
}

CounterFamily& Registry::AddCounter(std::string name, std::string help, std::vector<std::string> label_names) {
  return Add(std::make_unique<CounterFamily>(std::move(name), std::move(help), std::move(label_names)));
}

GaugeFamily& Registry::AddGauge(std::string name, std::string help, std::vector<std::string> label_names) {
  return Add(std::make_unique<GaugeFamily>(std::move(name), std::move(help), std::move(label_names)));
}

HistogramFamily& Registry::AddHistogram(std::string name, std::string help, std::vector<std::string> label_names,
                                        std::vector<double> buckets) {
  return Add(
      std::make_unique<HistogramFamily>(std::move(name), std::move(help), std::move(label_names), std::move(buckets)));
}

std::string Registry::Render() const {
  std::lock_guard lock(mu_);
  std::string out;
  for (const auto& family : families_) family->Render(out);
  return out;
}

}  // namespace pagoda::metrics
