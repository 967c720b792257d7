#include "pagoda/metrics/family.h"

#include <fmt/format.h>

#include <algorithm>
#include <iterator>
#include <numeric>

#include "pagoda/metrics/exposition.h"

namespace pagoda::metrics {

Family::Family(std::string name, std::string help, std::vector<std::string> label_names)
    : name_(std::move(name)), help_(std::move(help)), label_names_(std::move(label_names)) {
  PAGODA_CHECK_MSG(IsValidMetricName(name_), "invalid metric name");
  PAGODA_CHECK_MSG(!label_names_.empty(), "a family needs at least one label name");
  for (const std::string& label : label_names_) PAGODA_CHECK_MSG(IsValidLabelName(label), "invalid label name");
  sorted_labels_.resize(label_names_.size());
  std::iota(sorted_labels_.begin(), sorted_labels_.end(), size_t{0});
  std::sort(sorted_labels_.begin(), sorted_labels_.end(),
            [this](size_t a, size_t b) { return label_names_[a] < label_names_[b]; });
  PAGODA_CHECK_MSG(std::adjacent_find(sorted_labels_.begin(), sorted_labels_.end(),
                                      [this](size_t a, size_t b) { return label_names_[a] == label_names_[b]; }) ==
                       sorted_labels_.end(),
                   "duplicate label name");
}

void Family::RenderHeader(std::string& out, std::string_view exposed_name, std::string_view type) const {
  fmt::format_to(std::back_inserter(out), "# HELP {} ", exposed_name);
  AppendEscapedHelp(out, help_);
  fmt::format_to(std::back_inserter(out), "\n# TYPE {} {}\n", exposed_name, type);
}

void Family::RenderSample(std::string& out, std::string_view sample_name, const std::vector<std::string>& label_values,
                          std::optional<std::string_view> le, double value) const {
  out += sample_name;
  out += '{';
  bool first = true;
  auto append_label = [&](std::string_view label, std::string_view label_value) {
    if (!first) out += ',';
    first = false;
    out += label;
    out += "=\"";
    AppendEscapedLabelValue(out, label_value);
    out += '"';
  };
  for (size_t index : sorted_labels_) {
    if (le && std::string_view("le") < label_names_[index]) {
      append_label("le", *le);
      le.reset();
    }
    append_label(label_names_[index], label_values[index]);
  }
  if (le) append_label("le", *le);
  fmt::format_to(std::back_inserter(out), "}} {}\n", FormatValue(value));
}

}  // namespace pagoda::metrics
