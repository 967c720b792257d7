// Registry: the families one /metrics response shows, rendered in the order
// they were added (prometheus_client's registry order).
#pragma once

#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "pagoda/metrics/counter.h"
#include "pagoda/metrics/gauge.h"
#include "pagoda/metrics/histogram.h"

namespace pagoda::metrics {

class Registry {
 public:
  // The family stays valid as long as the registry. Names must be unique.
  CounterFamily& AddCounter(std::string name, std::string help, std::vector<std::string> label_names);
  GaugeFamily& AddGauge(std::string name, std::string help, std::vector<std::string> label_names);
  HistogramFamily& AddHistogram(std::string name, std::string help, std::vector<std::string> label_names,
                                std::vector<double> buckets);

  // Text exposition format 0.0.4 of every family. Safe to call from any
  // thread while others record or add families.
  std::string Render() const;

 private:
  template <typename F>
  F& Add(std::unique_ptr<F> family);

  mutable std::mutex mu_;
  std::vector<std::unique_ptr<Family>> families_;
};

}  // namespace pagoda::metrics
