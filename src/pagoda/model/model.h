// A loaded model: one forward pass over a flattened batch of tokens from
// several sequences, reading and writing the paged KV cache.
#pragma once

#include <cstdint>
#include <memory>
#include <span>

#include "pagoda/base/status.h"
#include "pagoda/kernels/cpu_kernels.h"
#include "pagoda/model/model_config.h"

namespace pagoda {

namespace gguf {
class GgufFile;
}

// Where one group of layers keeps the batch's K/V: a hybrid model's
// windowed and full-attention layers have block tables of their own
// (runner/kv_cache_layout.h).
struct KvGroupBatch {
  std::span<const int64_t> slot_mapping;  // [T] where each token's K/V is written
  std::span<const int32_t> block_tables;  // [B][max_blocks_per_seq]
  int64_t max_blocks_per_seq = 0;
};

// The flattened batch of one step (docs/architecture.md, "One engine step").
// T tokens from B sequences; sequence s owns rows [query_start_loc[s],
// query_start_loc[s+1]).
struct ForwardBatch {
  std::span<const int32_t> token_ids;        // [T]
  std::span<const int32_t> positions;        // [T]
  std::span<const int32_t> query_start_loc;  // [B + 1]
  std::span<const int32_t> seq_lens;         // [B] context length after this step
  std::span<const KvGroupBatch> kv_groups;   // one per group of layers
  std::span<const int32_t> layer_kv_group;   // [num_layers]: each layer's entry of kv_groups
  std::span<const int32_t> logits_rows;      // rows (into [T]) that go through the LM head
};

class Model {
 public:
  virtual ~Model() = default;
  virtual const ModelConfig& config() const = 0;
  // Runs the batch; writes logits for batch.logits_rows, in that order, to
  // logits ([logits_rows.size()][vocab_size]). kv_cache has one entry per
  // layer; the kernels run with ctx's kernel set, threads and scratch.
  virtual void Forward(const ForwardBatch& batch, std::span<const kernels::KvCacheLayer> kv_cache,
                       kernels::ComputeContext& ctx, float* logits) = 0;
  // Backs the activation buffers of a step of up to `max_tokens` tokens and
  // `max_logit_rows` logits rows with memory now, as vLLM's profile run
  // does: memory use then stays flat however the steps' sizes vary, instead
  // of stepping up (by doubling) the first time a step is wider than any
  // before. A larger step still runs, growing the buffers.
  virtual void ReserveActivations(int64_t max_tokens, int64_t max_logit_rows) = 0;
  // Repacks the weights into the layout that ctx's kernel set reads fastest
  // (kernels/packed_weights.h), once, before the model runs with it. Forward
  // is right with or without it, and with any kernel set afterwards.
  // Returns the bytes of the repacked copies (0: the set reads the weights
  // in place).
  virtual int64_t PackWeights(kernels::ComputeContext& ctx) = 0;
};

// Builds the model that the file's architecture names. The file must outlive
// the model: weights are read in place from the mapping.
StatusOr<std::unique_ptr<Model>> LoadModel(std::shared_ptr<const gguf::GgufFile> file);

}  // namespace pagoda
