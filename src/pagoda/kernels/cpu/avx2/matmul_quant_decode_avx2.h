// Decode (one x row) MatMul panels of the 32-element block types that follow
// the reference's one float update per block, for AVX2: each block of a
// panel is unpacked into registers and used at once (matmul_quant_decode_avx2.cc).
// The sums and float updates are those of the packing panels, so a row's
// result does not depend on which path, batch or thread computed it.
#pragma once

#include <cstdint>

#include "pagoda/kernels/cpu/simd_matmul.h"

namespace pagoda::kernels::cpu::avx2 {

void DecodePanelsQ4_0(const QuantizedRows& x, const MatrixView& w, int64_t row_begin, int64_t row_end, float* y);
void DecodePanelsQ5_0(const QuantizedRows& x, const MatrixView& w, int64_t row_begin, int64_t row_end, float* y);
void DecodePanelsQ5_1(const QuantizedRows& x, const MatrixView& w, int64_t row_begin, int64_t row_end, float* y);
void DecodePanelsIQ4_NL(const QuantizedRows& x, const MatrixView& w, int64_t row_begin, int64_t row_end,
                        float* y);

}  // namespace pagoda::kernels::cpu::avx2
