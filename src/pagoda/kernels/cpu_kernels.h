// The CPU kernels the model is built from. Kernels know nothing of requests:
// they see flat arrays, weight views and a paged KV cache.
//
// Every kernel here has a scalar twin in pagoda::kernels::reference (same
// arguments but the context), which is the test oracle. The functions in
// pagoda::kernels run the kernel set of the ComputeContext they are given,
// on its thread pool and with its scratch memory.
//
// Batch invariance: each output row depends only on its own input row (and,
// for attention, its own sequence), never on how many rows are in the batch or
// how work is split over threads.
#pragma once

#include <cstdint>
#include <functional>
#include <span>

#include "pagoda/tensor/dtype.h"

namespace pagoda::kernels {

class ComputeContext;  // compute_context.h

// A read-only weight matrix in GGUF layout: `rows` rows of `cols` elements,
// each row stored contiguously as DTypeRowBytes(dtype, cols) bytes.
struct MatrixView {
  DType dtype;
  const void* data;
  int64_t rows;
  int64_t cols;
  // Column k multiplies input element input_order[k] (a permutation of
  // [0, cols)), or element k when null: GPTQ's act-order checkpoints, whose
  // quantization groups are contiguous only in that order.
  const int32_t* input_order = nullptr;
  // The same weights repacked at load (packed_weights.h) into the layout of
  // the kernel set that will run them, or null. `panels_layout` names that
  // layout (its packing function); a set reads `panels` only where the
  // layout is its own, and `data` otherwise, which stays valid.
  const void* panels = nullptr;
  const void* panels_layout = nullptr;
};

// One layer's KV cache, the PagedAttention arena. F32 or F16: K and V each
// [num_blocks][block_size][num_kv_heads][head_dim]. BF16: K and V each
// [num_blocks][num_kv_heads] runs of block_size * head_dim elements, in the
// order AMX-BF16 tile products take as their second operand, so that the
// amx set's attention reads them without converting (cpu/kv_pairs_layout.h):
// K as [head_dim / 2][block_size] pairs of dimensions, V as [block_size / 2]
// [head_dim] pairs of positions. head_dim a multiple of 32 and block_size of
// 16 (KvPairsShapeOk).
struct KvCacheLayer {
  DType dtype;
  void* k;
  void* v;
  int64_t num_blocks;
  int64_t block_size;
  int64_t num_kv_heads;
  int64_t head_dim;
};

// The sequences of one flattened batch, as attention sees them.
struct AttentionBatch {
  int64_t num_seqs;
  const int32_t* query_start_loc;  // [num_seqs + 1]: sequence s owns query rows [qsl[s], qsl[s+1])
  const int32_t* seq_lens;         // [num_seqs]: context length after this step (cached + new)
  const int32_t* block_tables;     // [num_seqs][max_blocks_per_seq] block ids
  int64_t max_blocks_per_seq;
};

// y[i][j] = sum_k x[i][order[k]] * w[j][k]; x is f32 [m][w.cols], y is f32
// [m][w.rows]; order[k] = k unless w.input_order is set, in which case the
// rows of x are first gathered into that order (the kernel sets never see it).
// F32/F16/BF16 weights: f32 accumulation. Quantized weights: each x row is
// quantized on the fly to Q8_1 (for Q4_1 and Q5_1), Q8_0 (for Q4_0, Q5_0,
// Q8_0 and IQ4_NL) or Q8_K (for Q2_K..Q6_K and IQ4_XS), as GGML does, and
// dotted block by block with exact integer sums.
void MatMul(ComputeContext& ctx, const float* x, int64_t m, const MatrixView& w, float* y);

// One weight and its output, for MatMuls.
struct MatMulTarget {
  const MatrixView* w;
  float* y;  // [m][w->rows]
};

// Ops on rows [begin, end) of a batch (a norm, a residual add, an
// activation, RoPE, the KV write), through this header's ops on pointers to
// those rows. Inside a pool job those ops run on the calling thread, so it
// must only use ops that compute each row on its own: not MatMul or
// attention, and RoPE only through RopeRows.
using RowStage = std::function<void(int64_t begin, int64_t end)>;

// MatMul of one input against several weights that read it (a layer's Q, K
// and V; an MLP's gate and up), with MatMul's results. A SIMD set quantizes
// x once and splits all the weights' panels over the pool in one job, where
// separate calls would quantize it and synchronize the pool once each.
// `before` (where set) writes the input's rows first, and `after` takes on
// the outputs' rows. Where a SIMD set splits the batch's rows over the
// workers, each worker runs both on its own rows in the job that quantizes
// and multiplies them, so the rows stay in its core's cache and those ops
// need no job of their own; otherwise they run over the pool before and
// after.
void MatMuls(ComputeContext& ctx, const float* x, int64_t m, std::span<const MatMulTarget> targets,
             const RowStage& before = nullptr, const RowStage& after = nullptr);

// ops over rows [0, rows), split over the pool.
void RunOnRows(ComputeContext& ctx, int64_t rows, const RowStage& ops);

// out[i] = row ids[i] of table, dequantized to f32. Ids must be in range.
void EmbeddingLookup(ComputeContext& ctx, const MatrixView& table, const int32_t* ids, int64_t n, float* out);

// y[r] = x[r] / sqrt(mean(x[r]^2) + eps) * weight, for each of `rows` rows of `dim`.
void RmsNorm(ComputeContext& ctx, const float* x, const float* weight, int64_t rows, int64_t dim, float eps, float* y);

// How RoPE pairs a head's dimensions: GGML's "normal" style turns adjacent
// pairs (x[2i], x[2i+1]) (Llama, whose converter permutes Q and K to match);
// NeoX style turns (x[i], x[i + head_dim/2]) (Qwen, Gemma, Phi-3).
enum class RopeStyle { kNorm, kNeox };

struct RopeParams {
  RopeStyle style = RopeStyle::kNorm;
  float freq_base = 10000.0f;
  // Linear position scaling: angles are multiplied by this (1 / the GGUF's
  // rope.scaling.factor; Gemma 3's global layers use 1/8).
  float freq_scale = 1.0f;
  // head_dim / 2 divisors of the pairs' angles, or null: Llama 3.1's
  // rope_freqs.weight and Phi-3's LongRoPE factors.
  const float* freq_factors = nullptr;
  // Multiplies the cosine and sine (LongRoPE's attention factor).
  float attn_factor = 1.0f;
};

// RoPE in place on x [tokens][heads][head_dim], as ggml_rope_ext without
// YaRN: pair i of a token at position p turns by
// (p * freq_base^(-2i/head_dim) / freq_factors[i]) * freq_scale, and both
// rotated values are scaled by attn_factor.
void Rope(ComputeContext& ctx, float* x, const int32_t* positions, int64_t tokens, int64_t heads, int64_t head_dim,
          const RopeParams& params);
// The angles of a batch's positions, computed into the context's table (see
// RopeRows).
void PrepareRope(ComputeContext& ctx, const int32_t* positions, int64_t tokens, int64_t head_dim,
                 const RopeParams& params);
// Rope on rows [begin, end) of a batch of `tokens` rows, for RowStage: the
// angles come from the context's table, which inside a pool job must
// already hold these positions (PrepareRope before the job), since two
// workers must not write it at once.
void RopeRows(ComputeContext& ctx, float* x, const int32_t* positions, int64_t tokens, int64_t heads,
              int64_t head_dim, const RopeParams& params, int64_t begin, int64_t end);

// out = silu(gate) * up, elementwise over n.
void SiluMul(ComputeContext& ctx, const float* gate, const float* up, int64_t n, float* out);

// out = gelu(gate) * up, elementwise over n, with GELU's tanh approximation
// (GeGLU: Gemma's MLP; PyTorch's gelu(approximate="tanh")).
void GeluMul(ComputeContext& ctx, const float* gate, const float* up, int64_t n, float* out);

// y += x, elementwise over n.
void AddInPlace(ComputeContext& ctx, float* y, const float* x, int64_t n);

// y[r] += bias for each of `rows` rows of `cols` (Qwen2's QKV biases).
void AddBias(ComputeContext& ctx, float* y, const float* bias, int64_t rows, int64_t cols);

// x *= s, elementwise over n (Gemma's embedding scaling by sqrt(hidden)).
void Scale(ComputeContext& ctx, float* x, int64_t n, float s);

// x = cap * tanh(x / cap), elementwise over n (Gemma 2's final logit soft-capping).
void Softcap(ComputeContext& ctx, float* x, int64_t n, float cap);

// Writes each token's new K and V ([tokens][num_kv_heads][head_dim], f32) into
// the cache slot slot_mapping[t] = block_id * block_size + offset.
void WriteKv(ComputeContext& ctx, const float* k, const float* v, const int64_t* slot_mapping, int64_t tokens,
             const KvCacheLayer& cache);

// What distinguishes one attention layer from another.
struct AttentionParams {
  float scale = 1.0f;  // multiplies q . k
  // > 0: a query at position p sees only positions (p - sliding_window, p]
  // (Mistral, Gemma's local layers); 0: every earlier position.
  int64_t sliding_window = 0;
  // > 0: each scaled score s becomes softcap * tanh(s / softcap) before the
  // softmax (Gemma 2).
  float softcap = 0.0f;
};

// Causal grouped-query attention over the paged cache. Query row i of sequence
// s (q_len = qsl[s+1] - qsl[s]) sits at position seq_lens[s] - q_len + i and
// attends to positions [0, that position], or the window's part of them,
// reading K and V only through the sequence's block table (and only the
// blocks that hold those positions). q and out are
// [tokens][num_heads][head_dim]; head h reads kv head h / (num_heads / num_kv_heads).
void PagedAttention(ComputeContext& ctx, const float* q, int64_t num_heads, const KvCacheLayer& cache,
                    const AttentionBatch& batch, const AttentionParams& params, float* out);

// Mixture-of-experts routing for each of `tokens` rows of router logits
// [tokens][num_experts]: probabilities by softmax over all experts, the top k
// (ties: lower expert id), their probabilities renormalized to sum to 1 when
// normalize is set. Writes expert ids and weights, [tokens][k] each, in
// descending order of probability.
void MoeRoute(ComputeContext& ctx, const float* logits, int64_t tokens, int64_t num_experts, int64_t k,
              bool normalize, int32_t* expert_ids, float* weights);

}  // namespace pagoda::kernels
