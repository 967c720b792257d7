// One forward pass as the layers see it: the flattened batch, its view for
// attention, the kernels' context, and how many rows are still live.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <span>
#include <vector>

#include "pagoda/base/cache_line_vector.h"
#include "pagoda/kernels/cpu_kernels.h"
#include "pagoda/model/model.h"

namespace pagoda::layers {

class Step {
 public:
  // Checks the batch's arrays against each other and the cache's layer count.
  Step(const ForwardBatch& batch, std::span<const kernels::KvCacheLayer> kv_cache, int64_t num_layers,
       kernels::ComputeContext& ctx);

  const ForwardBatch& batch() const { return batch_; }
  kernels::ComputeContext& ctx() const { return ctx_; }
  // The layer's view of the batch for attention, and where its new K/V go.
  const kernels::AttentionBatch& attention(int64_t layer) const {
    return attention_[batch_.layer_kv_group[layer]];
  }
  const int64_t* slot_mapping(int64_t layer) const {
    return batch_.kv_groups[batch_.layer_kv_group[layer]].slot_mapping.data();
  }
  const kernels::KvCacheLayer& kv(int64_t layer) const { return kv_cache_[layer]; }
  int64_t tokens() const { return tokens_; }
  // Rows the next sublayer computes: every token, until NarrowToLogitRows.
  int64_t rows() const { return rows_; }
  int64_t logit_rows() const { return static_cast<int64_t>(batch_.logits_rows.size()); }

  // After the last attention only the rows that need logits matter, so the
  // rest of the last layer runs on those alone (as llama.cpp does): moves
  // those rows of each [tokens][width] buffer to its front, in order.
  struct RowBuffer {
    float* data;
    int64_t width;
  };
  void NarrowToLogitRows(std::initializer_list<RowBuffer> buffers);

 private:
  const ForwardBatch& batch_;
  std::span<const kernels::KvCacheLayer> kv_cache_;
  kernels::ComputeContext& ctx_;
  std::vector<kernels::AttentionBatch> attention_;  // one per KV group
  int64_t tokens_;
  int64_t rows_;
};

// Sizes a buffer for `rows` rows of `width` and returns its data.
float* Rows(CacheLineVector<float>& buffer, int64_t rows, int64_t width);
// Backs a buffer with touched memory for `rows` rows of `width`, which
// later Rows calls up to that size reuse.
void ReserveRows(CacheLineVector<float>& buffer, int64_t rows, int64_t width);

}  // namespace pagoda::layers
