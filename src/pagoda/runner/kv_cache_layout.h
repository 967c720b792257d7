// How a model's layers share the paged KV cache (vLLM's hybrid KV cache
// manager). Layers with the same attention span (the whole context, or one
// sliding window) form groups; each group has its own block tables over one
// shared pool of blocks. Groups hold equal numbers of layers, so a block id
// means the same amount of memory whichever group holds it: the arena has
// one K and one V tensor per "slot", and layer j of every group uses slot j.
// A block held by a windowed group thus stores that group's layers in every
// slot, and returning it to the pool frees memory for any group.
//
// A model whose layers all attend alike is one group with a slot per layer,
// the plain PagedAttention layout.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "pagoda/kv_blocks/kv_cache_manager.h"

namespace pagoda {

struct KvCacheLayout {
  std::vector<KvCacheGroupSpec> groups;
  std::vector<int32_t> layer_group;  // [num_layers]
  std::vector<int32_t> layer_slot;   // [num_layers]: the arena tensors the layer reads and writes
  int64_t num_slots = 0;

  int64_t num_layers() const { return static_cast<int64_t>(layer_group.size()); }
  // Slots that each block takes in memory for one token position: num_slots
  // for every group (the padding of a short group included).
  static KvCacheLayout Uniform(int64_t num_layers);
};

// Groups layers by their sliding window (0: full attention), in the order
// each span first appears. With one span there is one group. Otherwise, as
// vLLM does, every group holds as many layers as the rarest span has; the
// other spans are split into several groups, the last of them padded (its
// missing layers' slots stay unused in that group's blocks).
KvCacheLayout PlanKvCacheLayout(std::span<const int64_t> layer_sliding_window);

// One line for logs and `pagoda inspect`: "1 group of 30 layers (full
// attention)", or the groups of a hybrid model with their spans.
std::string DescribeKvCacheLayout(const KvCacheLayout& layout);

}  // namespace pagoda
