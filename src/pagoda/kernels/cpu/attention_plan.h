// PagedAttention split into independent (query row, head) jobs. The plan
// (validation, which sequence and position a row belongs to, where its KV
// lives) is shared by every implementation; only the per-row arithmetic,
// an AttendRowFn, differs between the reference and the SIMD kernels.
#pragma once

#include <cstdint>

#include "pagoda/kernels/cpu_kernels.h"

namespace pagoda {
class ThreadPool;
}

namespace pagoda::kernels::cpu {

// One query row and head attending over positions [0, n_ctx) of its sequence.
// K/V element (position p, dim d) is at slot * slot_stride + head_offset + d,
// slot = block_table[p / block_size] * block_size + p % block_size.
struct AttendRowArgs {
  const float* q;  // [head_dim]
  const void* k;
  const void* v;
  bool f16;  // cache elements are f16 (else f32)
  int64_t head_dim;
  int64_t slot_stride;
  int64_t head_offset;
  int64_t block_size;
  const int32_t* block_table;
  int64_t n_ctx;
  float scale;
  float* scores;  // scratch of n_ctx floats
  float* out;     // [head_dim]
};

// The arithmetic every AttendRowFn performs, in this order:
//   s_p = LaneDot(q, k_p) * scale                   (k_p widened to f32)
//   mx = max_p s_p;  e_p = expf(s_p - mx);  sum = LaneSum(e)
//   acc_d = fma(e_p, v_p[d], acc_d) over p in order, from +0
//   out_d = acc_d * (1 / sum)
using AttendRowFn = void (*)(const AttendRowArgs& args);

// Checks the batch against the cache (PAGODA_CHECK) and runs attend for every
// (query row, head), over the pool when one is given.
void RunPagedAttention(const float* q, int64_t num_heads, const KvCacheLayer& cache,
                       const AttentionBatch& batch, float scale, float* out, AttendRowFn attend,
                       ThreadPool* pool);

}  // namespace pagoda::kernels::cpu
