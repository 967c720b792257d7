// Reference PagedAttention and KV writes.
#include <algorithm>
#include <cmath>
#include <vector>

#include "pagoda/base/check.h"
#include "pagoda/kernels/cpu/attention_plan.h"
#include "pagoda/kernels/cpu/reference/attend_row.h"
#include "pagoda/kernels/cpu/reference/reference.h"
#include "pagoda/tensor/half.h"

namespace pagoda::kernels::reference {
namespace {

// Row p's K or V for this head, widened to f32.
void LoadKv(const cpu::AttendRowArgs& a, const void* base, int64_t p, float* dst) {
  const int64_t slot = int64_t{a.block_table[p / a.block_size]} * a.block_size + p % a.block_size;
  const int64_t offset = slot * a.slot_stride + a.head_offset;
  if (a.f16) {
    DequantizeRow(DType::kF16, static_cast<const f16_bits*>(base) + offset, dst, a.head_dim);
  } else {
    DequantizeRow(DType::kF32, static_cast<const float*>(base) + offset, dst, a.head_dim);
  }
}

}  // namespace

void AttendRow(const cpu::AttendRowArgs& a) {
  std::vector<float> kv(static_cast<size_t>(a.head_dim));
  for (int64_t p = 0; p < a.n_ctx; ++p) {
    LoadKv(a, a.k, p, kv.data());
    a.scores[p] = LaneDot(a.q, kv.data(), a.head_dim) * a.scale;
  }
  const float mx = *std::max_element(a.scores, a.scores + a.n_ctx);
  for (int64_t p = 0; p < a.n_ctx; ++p) a.scores[p] = std::exp(a.scores[p] - mx);
  const float sum = LaneSum(a.scores, a.n_ctx);
  std::vector<float> acc(static_cast<size_t>(a.head_dim), 0.0f);
  for (int64_t p = 0; p < a.n_ctx; ++p) {
    LoadKv(a, a.v, p, kv.data());
    for (int64_t d = 0; d < a.head_dim; ++d) acc[d] = std::fma(a.scores[p], kv[d], acc[d]);
  }
  const float inv = 1.0f / sum;
  for (int64_t d = 0; d < a.head_dim; ++d) a.out[d] = acc[d] * inv;
}

void PagedAttention(const float* q, int64_t num_heads, const KvCacheLayer& cache,
                    const AttentionBatch& batch, float scale, float* out) {
  cpu::RunPagedAttention(q, num_heads, cache, batch, scale, out, AttendRow, nullptr);
}

void WriteKv(const float* k, const float* v, const int64_t* slot_mapping, int64_t tokens,
             const KvCacheLayer& cache) {
  PAGODA_CHECK(cache.dtype == DType::kF32 || cache.dtype == DType::kF16);
  const int64_t width = cache.num_kv_heads * cache.head_dim;
  for (int64_t t = 0; t < tokens; ++t) {
    const int64_t slot = slot_mapping[t];
    PAGODA_CHECK_MSG(slot >= 0 && slot < cache.num_blocks * cache.block_size, "KV slot out of range");
    if (cache.dtype == DType::kF16) {
      QuantizeRowF16(k + t * width, static_cast<f16_bits*>(cache.k) + slot * width, width);
      QuantizeRowF16(v + t * width, static_cast<f16_bits*>(cache.v) + slot * width, width);
    } else {
      std::copy_n(k + t * width, width, static_cast<float*>(cache.k) + slot * width);
      std::copy_n(v + t * width, width, static_cast<float*>(cache.v) + slot * width);
    }
  }
}

}  // namespace pagoda::kernels::reference
