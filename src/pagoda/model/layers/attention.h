// Self-attention over the paged KV cache: the Q, K and V projections (with
// the biases and per-head norms some families add), RoPE, the cache write
// and PagedAttention. The output projection is left to the caller, which may
// first narrow the rows (Step::NarrowToLogitRows).
#pragma once

#include <cstdint>
#include <vector>

#include "pagoda/base/cache_line_vector.h"
#include "pagoda/kernels/cpu_kernels.h"
#include "pagoda/model/layers/step.h"

namespace pagoda::layers {

struct AttentionShape {
  int64_t num_heads = 0;
  int64_t num_kv_heads = 0;
  int64_t head_dim = 0;
  int64_t q_dim() const { return num_heads * head_dim; }
  int64_t kv_dim() const { return num_kv_heads * head_dim; }
};

struct AttentionWeights {
  kernels::MatrixView q{}, k{}, v{}, o{};
  // Added after the projections (Qwen2), or null.
  const float* q_bias = nullptr;
  const float* k_bias = nullptr;
  const float* v_bias = nullptr;
  // RMSNorm of each query and key head before RoPE (Qwen3, Gemma 3), [head_dim], or null.
  const float* q_norm = nullptr;
  const float* k_norm = nullptr;
};

// What one layer's attention does with its heads.
struct AttentionLayer {
  kernels::RopeParams rope;
  kernels::AttentionParams attention;
  float qk_norm_eps = 1e-6f;
};

class SelfAttention {
 public:
  // x: the normed hidden states [tokens][hidden], whose rows prepare_x
  // writes first (kernels::MatMuls); writes the heads' outputs
  // [tokens][q_dim] to out.
  void Run(const Step& step, int64_t layer, const AttentionShape& shape, const AttentionWeights& w,
           const AttentionLayer& settings, const kernels::RowStage& prepare_x, const float* x, float* out);
  // Backs the buffers of a step of up to `tokens` tokens (Model::ReserveActivations).
  void Reserve(int64_t tokens, const AttentionShape& shape);

 private:
  CacheLineVector<float> q_, k_, v_;
};

}  // namespace pagoda::layers
