#include "pagoda/runner/kv_cache_layout.h"

#include <fmt/format.h>

#include <algorithm>

#include "pagoda/base/check.h"

namespace pagoda {

KvCacheLayout KvCacheLayout::Uniform(int64_t num_layers) {
  KvCacheLayout layout;
  layout.groups = {KvCacheGroupSpec{}};
  layout.layer_group.assign(num_layers, 0);
  for (int64_t l = 0; l < num_layers; ++l) layout.layer_slot.push_back(static_cast<int32_t>(l));
  layout.num_slots = num_layers;
  return layout;
}

KvCacheLayout PlanKvCacheLayout(std::span<const int64_t> layer_sliding_window) {
  // The layers of each span, in order of first appearance.
  std::vector<int64_t> spans;
  std::vector<std::vector<int32_t>> layers_of;
  for (size_t l = 0; l < layer_sliding_window.size(); ++l) {
    const int64_t w = layer_sliding_window[l];
    PAGODA_CHECK(w >= 0);
    auto it = std::find(spans.begin(), spans.end(), w);
    if (it == spans.end()) {
      spans.push_back(w);
      layers_of.emplace_back();
      it = spans.end() - 1;
    }
    layers_of[it - spans.begin()].push_back(static_cast<int32_t>(l));
  }
  KvCacheLayout layout;
  layout.layer_group.assign(layer_sliding_window.size(), 0);
  layout.layer_slot.assign(layer_sliding_window.size(), 0);
  if (spans.empty()) return layout;
  size_t group_size = layers_of[0].size();
  for (const std::vector<int32_t>& layers : layers_of) group_size = std::min(group_size, layers.size());
  if (spans.size() == 1) group_size = layers_of[0].size();
  layout.num_slots = static_cast<int64_t>(group_size);
  for (size_t k = 0; k < spans.size(); ++k) {
    const std::vector<int32_t>& layers = layers_of[k];
    for (size_t i = 0; i < layers.size(); ++i) {
      if (i % group_size == 0) layout.groups.push_back({.sliding_window = spans[k]});
      layout.layer_group[layers[i]] = static_cast<int32_t>(layout.groups.size() - 1);
      layout.layer_slot[layers[i]] = static_cast<int32_t>(i % group_size);
    }
  }
  return layout;
}

std::string DescribeKvCacheLayout(const KvCacheLayout& layout) {
  // Groups per span, in order of first appearance.
  std::vector<std::pair<int64_t, int64_t>> spans;
  for (const KvCacheGroupSpec& g : layout.groups) {
    auto it = std::find_if(spans.begin(), spans.end(), [&](const auto& s) { return s.first == g.sliding_window; });
    if (it == spans.end()) {
      spans.emplace_back(g.sliding_window, 1);
    } else {
      ++it->second;
    }
  }
  std::string out = fmt::format("{} group{} of {} layer{}", layout.groups.size(), layout.groups.size() == 1 ? "" : "s",
                                layout.num_slots, layout.num_slots == 1 ? "" : "s");
  std::string parts;
  for (const auto& [window, count] : spans) {
    if (!parts.empty()) parts += ", ";
    parts += window == 0 ? fmt::format("{} full attention", count)
                         : fmt::format("{} sliding window {}", count, window);
  }
  return fmt::format("{} ({})", out, parts);
}

}  // namespace pagoda
