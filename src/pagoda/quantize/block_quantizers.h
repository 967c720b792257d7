// The per-type weight quantizers behind QuantizeWeightRows: nb consecutive
// blocks of the type from nb * its block size floats, each block on its own
// (GGML quantizes a whole tensor as one long row; blocks never interact).
#pragma once

#include <cstdint>

#include "pagoda/tensor/dtype.h"

namespace pagoda::quantize {

// 32-element blocks (quantize_row_q5_0_ref, q5_1, q8_0; Q4_0 and Q4_1 are
// the kernels' reference quantizers, which are GGML's _ref ones already).
void QuantizeQ5_0(const float* x, BlockQ5_0* y, int64_t nb);
void QuantizeQ5_1(const float* x, BlockQ5_1* y, int64_t nb);
void QuantizeQ8_0(const float* x, BlockQ8_0* y, int64_t nb);

// 256-element super-blocks with sub-blocks of 16 (quantize_row_q2_K_ref,
// q3_K, q6_K).
void QuantizeQ2_K(const float* x, BlockQ2_K* y, int64_t nb);
void QuantizeQ3_K(const float* x, BlockQ3_K* y, int64_t nb);
void QuantizeQ6_K(const float* x, BlockQ6_K* y, int64_t nb);

// 256-element super-blocks with sub-blocks of 32 and six-bit scales and
// minimums (quantize_row_q4_K_ref, q5_K).
void QuantizeQ4_K(const float* x, BlockQ4_K* y, int64_t nb);
void QuantizeQ5_K(const float* x, BlockQ5_K* y, int64_t nb);

// GGML's non-linear 4-bit table, per 32 elements (quantize_iq4_nl) and in
// 256-element super-blocks with six-bit sub-block scales (quantize_iq4_xs),
// as ggml_quantize_chunk runs them with no importance matrix.
void QuantizeIQ4_NL(const float* x, BlockIQ4_NL* y, int64_t nb);
void QuantizeIQ4_XS(const float* x, BlockIQ4_XS* y, int64_t nb);

}  // namespace pagoda::quantize
