// A K-quant or IQ4_XS super-block unpacked for maddubs, for the AVX2 units
// only (see matmul_k_avx2.cc). It is the reference's DecodedKBlock recast so
// that the integer sums need no scalar work:
//   q      the 256 values as unsigned bytes: value + bias, or for the signed
//          types (bias 0, `signs` set) the magnitude, with the value in sq;
//   sc     per 16-bit lane of a maddubs result (a pair of elements) the scale
//          of the sub-block the pair belongs to, 16 lanes per 32 elements;
//   gcorr, gmin  per 16-element group of Q8_K's bsums, bias times the
//          group's scale (at most 32 x 127, so it fits 16 bits) and its minimum.
// Then, exactly,
//   scaled = sum_v madd(maddubs(q_v, x_v), sc_v) - sum_g gcorr_g bsum_g
//   mins   = sum_g gmin_g bsum_g.
#pragma once

#include <cstdint>

#include "pagoda/kernels/cpu_kernels.h"

namespace pagoda::kernels::cpu::avx2 {

struct alignas(64) UnpackedK {
  uint8_t q[256];
  int8_t sq[256];  // the signed values, only for the types that need the sign
  int16_t sc[128];
  int16_t gcorr[16];
  int16_t gmin[16];
  float d;
  float dmin;
  int32_t signs;  // 1 when q holds magnitudes and sq the values
};

// Unpacks super-block b of weight row `row` of w (a K-quant or IQ4_XS
// matrix with nb super-blocks per row) into out.
void UnpackKBlock(const MatrixView& w, int64_t row, int64_t nb, int64_t b, UnpackedK& out);

}  // namespace pagoda::kernels::cpu::avx2
