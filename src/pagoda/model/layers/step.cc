#include "pagoda/model/layers/step.h"

#include <cstring>

#include "pagoda/base/check.h"

namespace pagoda::layers {

Step::Step(const ForwardBatch& batch, std::span<const kernels::KvCacheLayer> kv_cache, int64_t num_layers,
           kernels::ComputeContext& ctx)
    : batch_(batch),
      kv_cache_(kv_cache),
      ctx_(ctx),
      tokens_(static_cast<int64_t>(batch.token_ids.size())),
      rows_(tokens_) {
  PAGODA_CHECK(static_cast<int64_t>(kv_cache.size()) == num_layers);
  PAGODA_CHECK(static_cast<int64_t>(batch.layer_kv_group.size()) == num_layers);
  PAGODA_CHECK(batch.positions.size() == batch.token_ids.size());
  for (int32_t g : batch.layer_kv_group) PAGODA_CHECK(g >= 0 && static_cast<size_t>(g) < batch.kv_groups.size());
  for (const KvGroupBatch& g : batch.kv_groups) {
    PAGODA_CHECK(g.slot_mapping.size() == batch.token_ids.size());
    attention_.push_back({static_cast<int64_t>(batch.seq_lens.size()), batch.query_start_loc.data(),
                          batch.seq_lens.data(), g.block_tables.data(), g.max_blocks_per_seq});
  }
}

void Step::NarrowToLogitRows(std::initializer_list<RowBuffer> buffers) {
  const std::span<const int32_t> rows = batch_.logits_rows;
  for (const RowBuffer& b : buffers) {
    for (size_t i = 0; i < rows.size(); ++i) {
      const int64_t from = rows[i];
      PAGODA_CHECK(from >= static_cast<int64_t>(i));  // rows are strictly increasing
      if (from != static_cast<int64_t>(i)) {
        std::memcpy(b.data + i * b.width, b.data + from * b.width, b.width * sizeof(float));
      }
    }
  }
  rows_ = logit_rows();
}

void ReserveRows(CacheLineVector<float>& buffer, int64_t rows, int64_t width) {
  if (rows * width <= static_cast<int64_t>(buffer.size())) return;
  buffer.assign(static_cast<size_t>(rows * width), 0.0f);
}

float* Rows(CacheLineVector<float>& buffer, int64_t rows, int64_t width) {
  buffer.resize(static_cast<size_t>(rows * width));
  return buffer.data();
}

}  // namespace pagoda::layers
