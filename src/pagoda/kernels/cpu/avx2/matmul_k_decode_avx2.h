// Decode (one x row) MatMul panels of Q4_K, Q5_K and Q6_K for AVX2, with
// one weight row per lane and the unpacking fused into the dot products
// (matmul_k_decode_avx2.cc). Results equal the batch panels' (and the
// reference's) bit for bit, so a row's result does not depend on the batch.
#pragma once

#include <cstdint>

#include "pagoda/kernels/cpu_kernels.h"

namespace pagoda::kernels::cpu::avx2 {

// Whether DecodePanelsK covers weight type t.
bool HasDecodePanelsK(DType t);
// Rows [row_begin, row_end) of y (panels of kPanelRows) = w times the one x
// row, given as Q8_K super-blocks.
void DecodePanelsK(const BlockQ8_K* x, const MatrixView& w, int64_t row_begin, int64_t row_end, float* y);

}  // namespace pagoda::kernels::cpu::avx2
