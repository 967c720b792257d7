#include "pagoda/runner/model_runner.h"

#include <algorithm>

#include "pagoda/base/check.h"
#include "pagoda/runner/kv_block_copy.h"

namespace pagoda {

ModelRunner::ModelRunner(Model& model, const KvCacheArena& kv_cache, kernels::ComputeContext& ctx)
    : model_(model), kv_cache_(kv_cache), ctx_(ctx) {}

std::span<const float> ModelRunner::Execute(std::span<const BlockCopy> copies, std::span<const SequenceChunk> chunks) {
  CopyKvBlocks(kv_cache_.layers(), copies);
  return Execute(chunks);
}

std::span<const float> ModelRunner::Execute(std::span<const SequenceChunk> chunks) {
  const int64_t bs = kv_cache_.shape().block_size;
  token_ids_.clear();
  positions_.clear();
  slot_mapping_.clear();
  query_start_loc_.assign(1, 0);
  seq_lens_.clear();
  logits_rows_.clear();

  int64_t max_blocks = 1;
  for (const SequenceChunk& c : chunks) max_blocks = std::max<int64_t>(max_blocks, c.block_table.size());
  // Rows past a sequence's table are never read; block 0 keeps them in range.
  block_tables_.assign(chunks.size() * max_blocks, 0);

  for (size_t s = 0; s < chunks.size(); ++s) {
    const SequenceChunk& c = chunks[s];
    const int64_t n = static_cast<int64_t>(c.token_ids.size());
    const int64_t seq_len = c.num_computed + n;
    PAGODA_CHECK(n > 0);
    PAGODA_CHECK_MSG(static_cast<int64_t>(c.block_table.size()) * bs >= seq_len, "block table too short");
    std::copy(c.block_table.begin(), c.block_table.end(), block_tables_.begin() + s * max_blocks);
    for (int64_t i = 0; i < n; ++i) {
      const int64_t pos = c.num_computed + i;
      const int32_t block = c.block_table[pos / bs];
      PAGODA_CHECK(block >= 0 && block < kv_cache_.num_blocks());
      PAGODA_CHECK(c.token_ids[i] >= 0 && c.token_ids[i] < vocab_size());
      const int64_t row = static_cast<int64_t>(token_ids_.size());
      token_ids_.push_back(c.token_ids[i]);
      positions_.push_back(static_cast<int32_t>(pos));
      slot_mapping_.push_back(block * bs + pos % bs);
      if (c.logits == LogitsMode::kAll || (c.logits == LogitsMode::kLast && i == n - 1)) {
        logits_rows_.push_back(static_cast<int32_t>(row));
      }
    }
    query_start_loc_.push_back(static_cast<int32_t>(token_ids_.size()));
    seq_lens_.push_back(static_cast<int32_t>(seq_len));
  }

  const int64_t vocab = vocab_size();
  logits_.resize(logits_rows_.size() * vocab);
  ForwardBatch batch;
  batch.token_ids = token_ids_;
  batch.positions = positions_;
  batch.slot_mapping = slot_mapping_;
  batch.query_start_loc = query_start_loc_;
  batch.seq_lens = seq_lens_;
  batch.block_tables = block_tables_;
  batch.max_blocks_per_seq = max_blocks;
  batch.logits_rows = logits_rows_;
  model_.Forward(batch, kv_cache_.layers(), ctx_, logits_.data());
  return logits_;
}

}  // namespace pagoda
