// The KV cache write of the AVX-512 sets: each new token's K and V rows
// into their slots. An F16 cache rounds them with VCVTPS2PH (to nearest
// even, as tensor/half.h's F32ToF16, 16 lanes per instruction); only a NaN's
// payload may differ, which F32ToF16 drops. The reference's scalar
// conversion ran on the calling thread alone while the pool waited: 2–3% of
// a prompt's time. A BF16 cache takes F32ToBF16's rounding bit for bit
// (integer steps: VCVTNE2PS2BF16 would flush subnormals), K's dimension
// pairs scattered down their column of the run and V's values into every
// other 16-bit lane of their pair row (kv_pairs_layout.h).
#include "pagoda/kernels/cpu/avx512/avx512_kernels.h"
#include "pagoda/kernels/cpu/avx512/avx512_util.h"
#include "pagoda/kernels/cpu/write_kv_rows.h"

namespace pagoda::kernels::cpu::avx512 {
namespace {

void RoundRowToF16(const float* x, uint16_t* y, int64_t n) {
  for (int64_t i = 0; i < n; i += 16) {
    const __mmask16 mask = FirstLanes(n - i);
    const __m256i halves =
        _mm512_cvtps_ph(_mm512_maskz_loadu_ps(mask, x + i), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    _mm256_mask_storeu_epi16(y + i, mask, halves);
  }
}

// 16 floats rounded as F32ToBF16 (to nearest even; a NaN stays a quiet
// NaN), each in the low half of its dword.
__m512i Bf16InLowHalves(__m512 x) {
  const __m512i bits = _mm512_castps_si512(x);
  const __m512i lsb = _mm512_and_si512(_mm512_srli_epi32(bits, 16), _mm512_set1_epi32(1));
  const __m512i rounded =
      _mm512_srli_epi32(_mm512_add_epi32(bits, _mm512_add_epi32(lsb, _mm512_set1_epi32(0x7fff))), 16);
  const __mmask16 nan = _mm512_cmpgt_epu32_mask(_mm512_and_si512(bits, _mm512_set1_epi32(0x7fffffff)),
                                                _mm512_set1_epi32(0x7f800000));
  return _mm512_mask_or_epi32(rounded, nan, _mm512_srli_epi32(bits, 16), _mm512_set1_epi32(0x40));
}

// One KV head's rows into position i of its block's runs.
void WriteRowPairs(const float* k_row, const float* v_row, uint16_t* k_run, uint16_t* v_run, int64_t i,
                   const KvCacheLayer& cache) {
  const int64_t hd = cache.head_dim, bs = cache.block_size;
  // K: dword j of a 32-dimension slice is the pair (d + 2j, d + 2j + 1),
  // bound for pair row d / 2 + j, column i.
  const __m512i rows = _mm512_mullo_epi32(_mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15),
                                          _mm512_set1_epi32(static_cast<int32_t>(bs)));
  auto* k_column = reinterpret_cast<uint32_t*>(k_run) + i;
  for (int64_t d = 0; d < hd; d += 32) {
    const __m256i lo = _mm512_cvtepi32_epi16(Bf16InLowHalves(_mm512_loadu_ps(k_row + d)));
    const __m256i hi = _mm512_cvtepi32_epi16(Bf16InLowHalves(_mm512_loadu_ps(k_row + d + 16)));
    const __m512i pairs = _mm512_inserti64x4(_mm512_castsi256_si512(lo), hi, 1);
    _mm512_i32scatter_epi32(k_column + d / 2 * bs, rows, pairs, 4);
  }
  // V: the 16-bit half i % 2 of each dimension's dword in pair row i / 2.
  uint16_t* v_pair_row = v_run + i / 2 * hd * 2;
  const __mmask32 halves = i % 2 == 0 ? 0x55555555u : 0xaaaaaaaau;
  for (int64_t d = 0; d < hd; d += 16) {
    __m512i values = Bf16InLowHalves(_mm512_loadu_ps(v_row + d));
    if (i % 2 != 0) values = _mm512_slli_epi32(values, 16);
    _mm512_mask_storeu_epi16(v_pair_row + d * 2, halves, values);
  }
}

}  // namespace

void WriteKv(const float* k, const float* v, const int64_t* slot_mapping, int64_t tokens, const KvCacheLayer& cache) {
  if (cache.dtype == DType::kBF16) {
    WriteKvPairs(k, v, slot_mapping, tokens, cache, WriteRowPairs);
    return;
  }
  WriteKvRows(k, v, slot_mapping, tokens, cache, RoundRowToF16);
}

}  // namespace pagoda::kernels::cpu::avx512
