// BF16-weight MatMul with AVX512-BF16's VDPBF16PS, which multiplies 32 bf16
// pairs and adds them into 16 f32 lanes in one instruction, so the weights
// are used as stored, with no widening.
//
// The x rows are f32. Rounding them to bf16 would cost 8 bits of each
// activation; instead each element is split into two bf16 parts, x = hi + lo
// (hi = bf16(x), lo = bf16(x - hi)), and both are dotted with the weights:
// w * hi and w * lo are exact in f32, so each output differs from the
// widening kernel's only by x's residue below 16 bits and by the order of
// the f32 sums (within 1e-5 of the sum of |w * x|; the test states the bound).
//
// Batch invariance: every output is one fixed sequence of VDPBF16PS over its
// row pair (two accumulators, w * hi and w * lo, per 32 elements; added and
// folded at the end), whatever m, the tile it lands in, or the thread count.
//
// Speed (docs/performance.md): decode streams the weights from memory, one
// row at a time as the widening kernel does (interleaving 4 rows ran at
// 0.7x), and its two chains keep up with that stream; batches of 3 or more
// rows share each x load among 2 weight rows. On the Zen 5 machine the
// default model's prompts run 1.06-1.22x faster than with the widening
// kernel and decode as fast, so this set is the default where the CPU has
// AVX512-BF16 (kernel_set.cc).
// GCC 12 reports its own intrinsics' _mm*_undefined_* placeholders (which
// initialize a variable from itself by design) as maybe-uninitialized once
// they are inlined into this unit's loops: a known false positive.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"

#include <immintrin.h>

#include <vector>

#include "pagoda/kernels/cpu/avx512/avx512_bf16_kernels.h"
#include "pagoda/kernels/cpu/avx512/avx512_util.h"

namespace pagoda::kernels::cpu::avx512 {
namespace {

// 32 bf16 values from `p` (masked elements read as zero).
inline __m512bh Load32(const uint16_t* p, __mmask32 mask) {
  return (__m512bh)_mm512_maskz_loadu_epi16(mask, p);
}

inline __mmask32 First32(int64_t n) { return n >= 32 ? ~__mmask32{0} : (__mmask32{1} << n) - 1; }

constexpr int kPanel = 2;  // weight rows per tile when m >= 3 (4 x 2 x 2 accumulators)

// Row i of x as its bf16 parts: hi[c] = bf16(x[c]), lo[c] = bf16(x[c] - hi[c]).
void SplitRow(const float* x, int64_t k, uint16_t* hi, uint16_t* lo) {
  for (int64_t c = 0; c < k; c += 16) {
    const __mmask16 mask = FirstLanes(k - c);
    const __m512 v = _mm512_maskz_loadu_ps(mask, x + c);
    const __m256bh h = _mm512_cvtneps_pbh(v);
    const __m512 back = _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_cvtepu16_epi32((__m256i)h), 16));
    const __m256bh l = _mm512_cvtneps_pbh(_mm512_sub_ps(v, back));
    _mm256_mask_storeu_epi16(hi + c, mask, (__m256i)h);
    _mm256_mask_storeu_epi16(lo + c, mask, (__m256i)l);
  }
}

// y[r * ldy + c] for R split x rows (hi and lo, `k` elements per row) by C
// weight rows. Each output keeps two accumulators, one for w * hi and one
// for w * lo, so that even one x row against one weight row runs two
// independent VDPBF16PS chains; they are added and folded at the end. That
// sequence is the same for every R and C, so the tile shape may follow m
// without breaking batch invariance. The loops over R and C are unrolled
// outright: left as loops, GCC stores the accumulators to the stack every
// step, which halved the speed.
template <int R, int C>
void Tile(const uint16_t* const* rows, const uint16_t* hi, const uint16_t* lo, int64_t k, float* y, int64_t ldy) {
  // acc[r][2c]: w * hi, acc[r][2c + 1]: w * lo.
  __m512 acc[R][2 * C];
#pragma GCC unroll 16
  for (int r = 0; r < R; ++r) {
#pragma GCC unroll 16
    for (int c = 0; c < 2 * C; ++c) acc[r][c] = _mm512_setzero_ps();
  }
  for (int64_t i = 0; i < k; i += 32) {
    const __mmask32 mask = First32(k - i);
    __m512bh wv[C];
#pragma GCC unroll 16
    for (int c = 0; c < C; ++c) wv[c] = Load32(rows[c] + i, mask);
#pragma GCC unroll 16
    for (int r = 0; r < R; ++r) {
      const __m512bh xh = Load32(hi + r * k + i, mask);
      const __m512bh xl = Load32(lo + r * k + i, mask);
#pragma GCC unroll 16
      for (int c = 0; c < C; ++c) {
        acc[r][2 * c] = _mm512_dpbf16_ps(acc[r][2 * c], wv[c], xh);
        acc[r][2 * c + 1] = _mm512_dpbf16_ps(acc[r][2 * c + 1], wv[c], xl);
      }
    }
  }
#pragma GCC unroll 16
  for (int r = 0; r < R; ++r) {
#pragma GCC unroll 16
    for (int c = 0; c < C; ++c) y[r * ldy + c] = Fold16(_mm512_add_ps(acc[r][2 * c], acc[r][2 * c + 1]));
  }
}

// All x rows against C weight rows, 4 x rows at a time.
template <int C>
void RowGroup(const uint16_t* const* rows, const uint16_t* hi, const uint16_t* lo, int64_t m, int64_t k, float* y,
              int64_t ldy) {
  int64_t i = 0;
  for (; i + 4 <= m; i += 4) Tile<4, C>(rows, hi + i * k, lo + i * k, k, y + i * ldy, ldy);
  switch (m - i) {
    case 3: Tile<3, C>(rows, hi + i * k, lo + i * k, k, y + i * ldy, ldy); break;
    case 2: Tile<2, C>(rows, hi + i * k, lo + i * k, k, y + i * ldy, ldy); break;
    case 1: Tile<1, C>(rows, hi + i * k, lo + i * k, k, y + i * ldy, ldy); break;
    default: break;
  }
}

}  // namespace

void PanelsBF16Dot(const float* x, int64_t m, const MatrixView& w, int64_t row_begin, int64_t row_end, float* y) {
  const int64_t k = w.cols;
  // Split once per call (one call per thread per MatMul), reused by every row.
  thread_local std::vector<uint16_t> split;
  split.resize(static_cast<size_t>(2 * m * k));
  uint16_t* hi = split.data();
  uint16_t* lo = hi + m * k;
  for (int64_t i = 0; i < m; ++i) SplitRow(x + i * k, k, hi + i * k, lo + i * k);
  const auto* weights = static_cast<const uint16_t*>(w.data);
  const uint16_t* rows[kPanel];
  int64_t j = row_begin;
  // Decode (m < 3) is bound by reading the weights from memory: one weight
  // row at a time keeps that a single stream, which the hardware
  // prefetchers follow (4 interleaved rows ran at half the speed). Larger
  // batches are bound by the arithmetic: kPanel weight rows share each x load.
  if (m >= 3) {
    for (; j + kPanel <= row_end; j += kPanel) {
      for (int c = 0; c < kPanel; ++c) rows[c] = weights + (j + c) * k;
      RowGroup<kPanel>(rows, hi, lo, m, k, y + j, w.rows);
    }
  }
  for (; j < row_end; ++j) {
    rows[0] = weights + j * k;
    RowGroup<1>(rows, hi, lo, m, k, y + j, w.rows);
  }
}

}  // namespace pagoda::kernels::cpu::avx512
