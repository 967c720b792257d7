// PagedAttention split into independent (query row, head) jobs. The plan
// (validation, which sequence and position a row belongs to, where its KV
// lives) is shared by every implementation; only the per-row arithmetic,
// an AttendRowFn, differs between the reference and the SIMD kernels.
#pragma once

#include <cstdint>
#include <vector>

#include "pagoda/kernels/cpu_kernels.h"

namespace pagoda::kernels::cpu {

// One query row and head attending over positions [first_pos, n_ctx) of its
// sequence (first_pos > 0 for a sliding window).
// K/V element (position p, dim d) is at slot * slot_stride + head_offset + d,
// slot = block_table[p / block_size] * block_size + p % block_size; in a BF16
// cache (pairs) at block_table[p / block_size] * block_size * slot_stride +
// head_offset + KvPairsK or KvPairsV(p % block_size, d), head_offset then
// being the KV head's run within a block (kv_pairs_layout.h).
struct AttendRowArgs {
  const float* q;  // [head_dim]
  const void* k;
  const void* v;
  bool f16;  // cache elements are f16 (else f32, or bf16 with pairs)
  bool pairs;  // a BF16 cache
  int64_t head_dim;
  int64_t slot_stride;
  int64_t head_offset;
  int64_t block_size;
  const int32_t* block_table;
  int64_t first_pos;
  int64_t n_ctx;
  float scale;
  float softcap;  // 0: none
  float* scores;  // scratch of n_ctx - first_pos floats; scores[i] is position first_pos + i
  float* out;     // [head_dim]
};

// The arithmetic every AttendRowFn performs, in this order (GGML's non-flash
// attention on AVX-512, as llama.cpp runs it for a one-token batch):
//   s_p = GgmlDotF32(q, k_p) * scale                 (k_p widened to f32)
//   s_p = tanhf(s_p * (1 / softcap)) * softcap        (only when softcap > 0)
//   mx = max_p s_p;  e_p = GgmlExpf(s_p - mx)
//   sum = double sum over groups of 16 positions of LaneSum(group, zero-padded)
//   prob_p = e_p * (float)(1 / sum)
//   out_d = 64-lane GgmlDotF32 order of prob . v[.][d], context zero-padded
//           to a multiple of 64 (lane (p - first_pos) % 64; no scalar tail)
// where p runs over [first_pos, n_ctx) and groups start at first_pos.
// llama.cpp computes out_d for batches of 2+ tokens with llamafile's 16-lane
// tinyBLAS instead (lane p % 16); a batch-invariant kernel must pick one, and
// the one-token order is the one every decode step uses. The two differ by an
// ulp in some outputs, which the next matmul's int8 quantization almost
// always absorbs (the fixture prompts' prefill logits still match exactly).
using AttendRowFn = void (*)(const AttendRowArgs& args);

// The first position a query at `position` sees (> 0 only in a window).
int64_t FirstVisible(int64_t position, int64_t sliding_window);

// Checks the layer's parameters and the batch against the cache
// (PAGODA_CHECK) and returns the sequence of every query row. With a sliding
// window only the blocks some query row can see must be valid: the others
// may already have gone back to the pool.
std::vector<int32_t> CheckedSequenceOfRows(int64_t num_heads, const KvCacheLayer& cache, const AttentionBatch& batch,
                                           const AttentionParams& params);

// Checks the batch against the cache (PAGODA_CHECK) and runs attend for every
// (query row, head), on ctx's pool and scratch when one is given (else
// serially, with scratch of its own).
void RunPagedAttention(const float* q, int64_t num_heads, const KvCacheLayer& cache,
                       const AttentionBatch& batch, const AttentionParams& params, float* out, AttendRowFn attend,
                       ComputeContext* ctx);

}  // namespace pagoda::kernels::cpu
