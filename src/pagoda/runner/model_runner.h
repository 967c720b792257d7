// Turns one step's work (chunks of tokens from several sequences, each with
// its block table) into the flattened batch the model runs over, and returns
// the logits rows that were asked for.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "pagoda/base/cache_line_vector.h"
#include "pagoda/kv_blocks/kv_cache_manager.h"
#include "pagoda/model/model.h"
#include "pagoda/runner/kv_cache_arena.h"

namespace pagoda {

enum class LogitsMode {
  kNone,  // a prefill chunk that is not the prompt's last
  kLast,  // the next-token distribution
  kAll,   // every position (perplexity, prompt logprobs)
};

// New tokens of one sequence for this step.
struct SequenceChunk {
  std::span<const int32_t> token_ids;    // tokens to compute now
  int32_t num_computed = 0;              // tokens of this sequence already in the cache
  // One table per KV cache group (the arena's layout), each covering
  // num_computed + token_ids.size() tokens; kNullBlock where a windowed
  // group no longer holds a block.
  BlockTables block_tables;
  LogitsMode logits = LogitsMode::kLast;
};

class ModelRunner {
 public:
  // The model runs with ctx (kernel set, threads, scratch) on every step.
  ModelRunner(Model& model, const KvCacheArena& kv_cache, kernels::ComputeContext& ctx);

  // Runs the chunks as one batch. Returns logits, [rows][vocab_size]: for each
  // chunk in order, one row per token (kAll), one row (kLast) or none. The
  // span stays valid until the next call.
  std::span<const float> Execute(std::span<const SequenceChunk> chunks);
  // One scheduler step: the copy-on-write block copies first (a forked
  // sequence's chunk may write into a block copied this step), then the chunks.
  std::span<const float> Execute(std::span<const BlockCopy> copies, std::span<const SequenceChunk> chunks);

  // Backs the model's activations and the logits of a step of up to
  // `max_tokens` tokens and `max_logit_rows` logits rows (one per running
  // sequence) with memory now, as vLLM's profile run does, so that memory
  // use does not step up later the first time a step is wider than any
  // before (a logits row alone is 192 KiB for a 49,152-token vocabulary).
  void Reserve(int64_t max_tokens, int64_t max_logit_rows);

  int64_t vocab_size() const { return model_.config().vocab_size; }
  int64_t block_size() const { return kv_cache_.shape().block_size; }
  const Model& model() const { return model_; }

 private:
  Model& model_;
  const KvCacheArena& kv_cache_;
  kernels::ComputeContext& ctx_;
  // The flattened batch, rebuilt every step without reallocating.
  std::vector<int32_t> token_ids_, positions_, query_start_loc_, seq_lens_, logits_rows_;
  std::vector<std::vector<int32_t>> block_tables_;  // [group]
  std::vector<std::vector<int64_t>> slot_mapping_;  // [group]
  std::vector<KvGroupBatch> kv_groups_;
  CacheLineVector<float> logits_;
};

}  // namespace pagoda
