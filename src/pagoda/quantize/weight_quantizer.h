// Weight quantization as llama-quantize does it without an importance
// matrix: ggml_quantize_chunk with no imatrix (GGML's quantize_row_*_ref,
// but for IQ4_NL and IQ4_XS quantize_iq4_nl/xs: IQ4_NL's _ref row searches
// fewer scales), reimplemented so that Pagoda writes the same bytes as
// llama.cpp for the same f32 weights.
#pragma once

#include <cstdint>

#include "pagoda/tensor/dtype.h"

namespace pagoda::quantize {

// Whether QuantizeWeightRows writes this type: F32, F16, BF16, Q4_0, Q4_1,
// Q5_0, Q5_1, Q8_0, Q2_K..Q6_K, IQ4_NL and IQ4_XS.
bool CanQuantizeWeights(DType t);

// Whether a row of n_per_row elements can be stored as t: a positive
// multiple of its block size (32, or 256 for the K-quants and IQ4_XS).
// llama-quantize picks another type for a tensor whose rows fail this.
bool CanQuantizeRowLength(DType t, int64_t n_per_row);

// Quantizes `rows` contiguous rows of n_per_row floats into `out`, which
// must hold rows * DTypeRowBytes(t, n_per_row) bytes, with GGML's reference
// rounding, bit for bit. Aborts (PAGODA_CHECK) on a type it cannot write or
// a row length CanQuantizeRowLength refuses. Inputs are assumed finite.
void QuantizeWeightRows(DType t, const float* x, int64_t rows, int64_t n_per_row, void* out);

}  // namespace pagoda::quantize
