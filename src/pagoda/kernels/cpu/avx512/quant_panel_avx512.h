// The packed panel of the 32-element block types and its per-block float
// update, shared by the AVX-512 VNNI panels (matmul_quant_avx512.cc) and the
// AMX ones (matmul_quant_amx.cc). Both compute each block's exact integer sum
// and then run this one update on it, so a row's result does not depend on
// which of them ran it: that is what keeps batch invariance exact when
// large batches take AMX and single rows take VNNI.
//
// Internal linkage only, as avx512_util.h (include that first).
#pragma once

#include <cstdint>

#include "pagoda/kernels/cpu/quant_block_layout.h"
#include "pagoda/kernels/cpu/simd_matmul.h"

namespace pagoda::kernels::cpu::avx512 {
namespace {

// Stored (packed) weights n stand for n - kOffset: VPDPBUSD multiplies
// unsigned weight bytes by signed x bytes, so Q4_0's -8 and Q5_0's -16
// offsets, and the 128 added to the signed Q8_0 and IQ4_NL values, are
// applied as -offset * sum(q) on the block sum (the AMX panels instead
// center the packed bytes and multiply signed by signed).
template <Kind K>
constexpr int kOffset = K == Kind::kQ4_0    ? 8
                        : K == Kind::kQ5_0  ? 16
                        : K == Kind::kIQ4_NL || K == Kind::kQ8_0 ? 128
                                                                  : 0;

// A packed block of a 16-row panel: 8 weight vectors, vector t holding in
// lane l the 4 unsigned bytes of row l that meet x bytes 4t..4t+3 (which is
// also AMX's B-tile layout: 8 rows of 16 dwords); then the 16 scales and
// (Q4_1, Q5_1) the 16 minimums, as floats.
template <Kind K>
constexpr int kPackedBytes = 8 * 64 + (kHasMinimum<K> ? 128 : 64);
constexpr int kPackedScalesOffset = 8 * 64;
constexpr int kPackedMinimumsOffset = 8 * 64 + 64;

// acc += the block's term for one x row and 16 weight rows, given the exact
// integer sum of stored weights times x bytes: (d_w d_x) (sum - offset
// sum(q)) (+ m_w s_x), as FMAs into acc. Every kind takes one float update
// per block; that is not GGML's order (it keeps eight group accumulators for
// Q4_1 and Q8_0, and rounds each product before adding), which the parity
// rule (by tolerance) no longer requires: the update is what bounds the AMX
// panels' speed, and four vector operations (Q4_1) do what six did. The
// scalar and AVX2 sets keep GGML's order.
// kCentered: sumi already is the sum of (stored - offset) times x bytes (the
// AMX panels' signed weights), the same integer as after the subtraction.
template <Kind K, bool kCentered = false>
inline __m512 AddBlockTerm(__m512 acc, __m512i sumi, __m512 d, __m512 m, const QuantizedRows& x, int64_t xb) {
  if constexpr (kOffset<K> != 0 && !kCentered) sumi = _mm512_sub_epi32(sumi, _mm512_set1_epi32(kOffset<K> * x.sum[xb]));
  acc = _mm512_fmadd_ps(_mm512_cvtepi32_ps(sumi), _mm512_mul_ps(d, _mm512_set1_ps(x.d[xb])), acc);
  if constexpr (kHasMinimum<K>) acc = _mm512_fmadd_ps(m, _mm512_set1_ps(x.s[xb]), acc);
  return acc;
}

}  // namespace
}  // namespace pagoda::kernels::cpu::avx512
