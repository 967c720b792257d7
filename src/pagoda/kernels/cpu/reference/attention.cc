// Reference PagedAttention and KV writes.
#include <algorithm>
#include <cmath>
#include <vector>

#include "pagoda/base/check.h"
#include "pagoda/kernels/cpu/attention_plan.h"
#include "pagoda/kernels/cpu/kv_pairs_layout.h"
#include "pagoda/kernels/cpu/reference/attend_row.h"
#include "pagoda/kernels/cpu/reference/reference.h"
#include "pagoda/kernels/cpu/write_kv_rows.h"
#include "pagoda/tensor/half.h"

namespace pagoda::kernels::reference {
namespace {

// Row p's K or V for this head, widened to f32.
void LoadKv(const cpu::AttendRowArgs& a, const void* base, int64_t p, float* dst, bool is_v) {
  const int64_t slot = int64_t{a.block_table[p / a.block_size]} * a.block_size + p % a.block_size;
  if (a.pairs) {
    const auto* run = static_cast<const bf16_bits*>(base) + (slot - p % a.block_size) * a.slot_stride + a.head_offset;
    for (int64_t d = 0; d < a.head_dim; ++d) {
      dst[d] = BF16ToF32(run[is_v ? cpu::KvPairsV(a.head_dim, p % a.block_size, d)
                                  : cpu::KvPairsK(a.block_size, p % a.block_size, d)]);
    }
    return;
  }
  const int64_t offset = slot * a.slot_stride + a.head_offset;
  if (a.f16) {
    DequantizeRow(DType::kF16, static_cast<const f16_bits*>(base) + offset, dst, a.head_dim);
  } else {
    DequantizeRow(DType::kF32, static_cast<const float*>(base) + offset, dst, a.head_dim);
  }
}

}  // namespace

void AttendRow(const cpu::AttendRowArgs& a) {
  constexpr int kLanes = 16;
  const int64_t n = a.n_ctx - a.first_pos;
  std::vector<float> kv(static_cast<size_t>(a.head_dim));
  for (int64_t i = 0; i < n; ++i) {
    LoadKv(a, a.k, a.first_pos + i, kv.data(), false);
    a.scores[i] = GgmlDotF32(a.q, kv.data(), a.head_dim) * a.scale;
  }
  if (a.softcap > 0.0f) Softcap(a.scores, n, a.softcap);
  const float mx = *std::max_element(a.scores, a.scores + n);
  // GGML's ggml_vec_soft_max_f32: exponentials 16 at a time, each group's
  // 16-lane fold added to a double; then one multiply by (float)(1 / sum).
  double sum = 0.0;
  for (int64_t p0 = 0; p0 < n; p0 += kLanes) {
    float group[kLanes] = {};
    for (int l = 0; l < kLanes && p0 + l < n; ++l) {
      a.scores[p0 + l] = GgmlExpf(a.scores[p0 + l] - mx);
      group[l] = a.scores[p0 + l];
    }
    sum += static_cast<double>(LaneSum(group, kLanes));
  }
  const float inv = static_cast<float>(1.0 / sum);
  for (int64_t i = 0; i < n; ++i) a.scores[i] *= inv;
  // out_d = GgmlDotF32(prob, v[.][d]) over the context padded with zeros to
  // a multiple of 64 (llama.cpp pads its KV view to 256 cells), i.e. lane
  // p % 64 accumulates prob_p * v_p[d] by fma over p in order, then the 64
  // lanes fold (l += l+32, l+16, l+8, l+4, l+2, l+1). This is GGML's
  // ggml_vec_dot_f32, which llama.cpp uses for one-token batches; for larger
  // batches it uses llamafile's 16-lane tinyBLAS instead, which one
  // batch-invariant kernel cannot also follow (see attention_plan.h).
  constexpr int kVLanes = 64;
  std::vector<float> lanes(static_cast<size_t>(kVLanes * a.head_dim), 0.0f);
  for (int64_t i = 0; i < n; ++i) {
    LoadKv(a, a.v, a.first_pos + i, kv.data(), true);
    float* lane = lanes.data() + (i % kVLanes) * a.head_dim;
    for (int64_t d = 0; d < a.head_dim; ++d) lane[d] = std::fma(a.scores[i], kv[d], lane[d]);
  }
  for (int64_t d = 0; d < a.head_dim; ++d) {
    float col[kVLanes];
    for (int l = 0; l < kVLanes; ++l) col[l] = lanes[l * a.head_dim + d];
    for (int width = kVLanes / 2; width >= 1; width /= 2) {
      for (int l = 0; l < width; ++l) col[l] += col[l + width];
    }
    a.out[d] = col[0];
  }
}

void PagedAttention(const float* q, int64_t num_heads, const KvCacheLayer& cache,
                    const AttentionBatch& batch, const AttentionParams& params, float* out) {
  cpu::RunPagedAttention(q, num_heads, cache, batch, params, out, AttendRow, nullptr);
}

void WriteKv(const float* k, const float* v, const int64_t* slot_mapping, int64_t tokens,
             const KvCacheLayer& cache) {
  if (cache.dtype == DType::kBF16) {
    cpu::WriteKvPairs(k, v, slot_mapping, tokens, cache,
                      [](const float* k_row, const float* v_row, uint16_t* k_run, uint16_t* v_run, int64_t i,
                         const KvCacheLayer& c) {
                        for (int64_t d = 0; d < c.head_dim; ++d) {
                          k_run[cpu::KvPairsK(c.block_size, i, d)] = F32ToBF16(k_row[d]);
                          v_run[cpu::KvPairsV(c.head_dim, i, d)] = F32ToBF16(v_row[d]);
                        }
                      });
    return;
  }
  cpu::WriteKvRows(k, v, slot_mapping, tokens, cache, QuantizeRowF16);
}

}  // namespace pagoda::kernels::reference
