#include "pagoda/metrics/counter.h"

namespace pagoda::metrics {
namespace {

std::string WithoutTotalSuffix(std::string name) {
  constexpr std::string_view kTotal = "_total";
  if (name.ends_with(kTotal)) name.resize(name.size() - kTotal.size());
  return name;
}

}  // namespace

void Counter::Inc(double amount) {
  PAGODA_CHECK_MSG(amount >= 0, "counters only go up");
  value_.fetch_add(amount, std::memory_order_relaxed);
}

CounterFamily::CounterFamily(std::string name, std::string help, std::vector<std::string> label_names)
    : LabeledFamily(WithoutTotalSuffix(std::move(name)), std::move(help), std::move(label_names)) {}

void CounterFamily::Render(std::string& out) const {
  const std::string exposed = name() + "_total";
  RenderHeader(out, exposed, "counter");
  ForEachChild([&](const std::vector<std::string>& label_values, const Counter& child) {
    RenderSample(out, exposed, label_values, std::nullopt, child.Value());
  });
}

}  // namespace pagoda::metrics
