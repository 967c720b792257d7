#include "pagoda/runner/model_runner.h"

#include <algorithm>

#include "pagoda/base/check.h"
#include "pagoda/runner/kv_block_copy.h"

namespace pagoda {

ModelRunner::ModelRunner(Model& model, const KvCacheArena& kv_cache, kernels::ComputeContext& ctx)
    : model_(model), kv_cache_(kv_cache), ctx_(ctx) {
  // A group's tables may drop blocks outside its window, so each layer must
  // see no further back than its group keeps (a full group keeps all).
  const KvCacheLayout& layout = kv_cache.layout();
  const ModelConfig& c = model.config();
  PAGODA_CHECK_MSG(layout.num_layers() == c.num_layers, "KV cache layout for another layer count");
  for (int64_t l = 0; l < c.num_layers; ++l) {
    const int64_t group_window = layout.groups[layout.layer_group[l]].sliding_window;
    PAGODA_CHECK_MSG(group_window == 0 || group_window == c.layer_sliding_window[l],
                     "a layer in a KV cache group with another sliding window");
  }
}

void ModelRunner::Reserve(int64_t max_tokens, int64_t max_logit_rows) {
  PAGODA_CHECK(max_tokens >= 0 && max_logit_rows >= 0);
  model_.ReserveActivations(max_tokens, max_logit_rows);
  if (max_logit_rows * vocab_size() > static_cast<int64_t>(logits_.size())) {
    logits_.assign(static_cast<size_t>(max_logit_rows * vocab_size()), 0.0f);
  }
}

std::span<const float> ModelRunner::Execute(std::span<const BlockCopy> copies, std::span<const SequenceChunk> chunks) {
  CopyKvBlocks(kv_cache_.slots(), copies);
  return Execute(chunks);
}

std::span<const float> ModelRunner::Execute(std::span<const SequenceChunk> chunks) {
  const int64_t bs = kv_cache_.shape().block_size;
  const size_t num_groups = kv_cache_.layout().groups.size();
  token_ids_.clear();
  positions_.clear();
  query_start_loc_.assign(1, 0);
  seq_lens_.clear();
  logits_rows_.clear();
  block_tables_.resize(num_groups);
  slot_mapping_.resize(num_groups);
  kv_groups_.resize(num_groups);

  int64_t max_blocks = 1;
  for (const SequenceChunk& c : chunks) {
    PAGODA_CHECK_MSG(c.block_tables.size() == num_groups, "one block table per KV cache group");
    for (const std::vector<int32_t>& table : c.block_tables) max_blocks = std::max<int64_t>(max_blocks, table.size());
  }
  for (size_t g = 0; g < num_groups; ++g) {
    // Rows past a sequence's table are never read; block 0 keeps them in range.
    block_tables_[g].assign(chunks.size() * max_blocks, 0);
    slot_mapping_[g].clear();
  }

  for (size_t s = 0; s < chunks.size(); ++s) {
    const SequenceChunk& c = chunks[s];
    const int64_t n = static_cast<int64_t>(c.token_ids.size());
    const int64_t seq_len = c.num_computed + n;
    PAGODA_CHECK(n > 0);
    for (size_t g = 0; g < num_groups; ++g) {
      const std::vector<int32_t>& table = c.block_tables[g];
      PAGODA_CHECK_MSG(static_cast<int64_t>(table.size()) * bs >= seq_len, "block table too short");
      std::copy(table.begin(), table.end(), block_tables_[g].begin() + s * max_blocks);
      for (int64_t i = 0; i < n; ++i) {
        const int64_t pos = c.num_computed + i;
        const int32_t block = table[pos / bs];
        PAGODA_CHECK(block >= 0 && block < kv_cache_.num_blocks());
        slot_mapping_[g].push_back(block * bs + pos % bs);
      }
    }
    for (int64_t i = 0; i < n; ++i) {
      PAGODA_CHECK(c.token_ids[i] >= 0 && c.token_ids[i] < vocab_size());
      const int64_t row = static_cast<int64_t>(token_ids_.size());
      token_ids_.push_back(c.token_ids[i]);
      positions_.push_back(static_cast<int32_t>(c.num_computed + i));
      if (c.logits == LogitsMode::kAll || (c.logits == LogitsMode::kLast && i == n - 1)) {
        logits_rows_.push_back(static_cast<int32_t>(row));
      }
    }
    query_start_loc_.push_back(static_cast<int32_t>(token_ids_.size()));
    seq_lens_.push_back(static_cast<int32_t>(seq_len));
  }
  for (size_t g = 0; g < num_groups; ++g) kv_groups_[g] = {slot_mapping_[g], block_tables_[g], max_blocks};

  const int64_t vocab = vocab_size();
  logits_.resize(logits_rows_.size() * vocab);
  ForwardBatch batch;
  batch.token_ids = token_ids_;
  batch.positions = positions_;
  batch.query_start_loc = query_start_loc_;
  batch.seq_lens = seq_lens_;
  batch.kv_groups = kv_groups_;
  batch.layer_kv_group = kv_cache_.layout().layer_group;
  batch.logits_rows = logits_rows_;
  model_.Forward(batch, kv_cache_.layers(), ctx_, logits_.data());
  return logits_;
}

}  // namespace pagoda
