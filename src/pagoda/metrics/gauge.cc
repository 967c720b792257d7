#include "pagoda/metrics/gauge.h"

namespace pagoda::metrics {

GaugeFamily::GaugeFamily(std::string name, std::string help, std::vector<std::string> label_names)
    : LabeledFamily(std::move(name), std::move(help), std::move(label_names)) {}

void GaugeFamily::Render(std::string& out) const {
  RenderHeader(out, name(), "gauge");
  ForEachChild([&](const std::vector<std::string>& label_values, const Gauge& child) {
    RenderSample(out, name(), label_values, std::nullopt, child.Value());
  });
}

}  // namespace pagoda::metrics
