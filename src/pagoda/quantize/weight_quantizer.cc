// QuantizeWeightRows: the row-length check and the dispatch by type. Rows
// are contiguous and no block spans two of them, so all rows go through
// the per-type quantizer as one run of blocks, as ggml_quantize_chunk does.
#include "pagoda/quantize/weight_quantizer.h"

#include <cstring>

#include "pagoda/base/check.h"
#include "pagoda/kernels/cpu/reference/reference.h"
#include "pagoda/quantize/block_quantizers.h"

namespace pagoda::quantize {
namespace {

namespace ref = kernels::reference;

// The types whose quantizer is a plain conversion or one the kernels
// already have with GGML's reference rounding (F16/BF16 round to nearest
// even; Q4_0/Q4_1 are quantize_row_q4_0_ref/q4_1_ref). n elements.
bool QuantizeWithKernels(DType t, const float* x, int64_t n, void* out) {
  switch (t) {
    case DType::kF32: std::memcpy(out, x, static_cast<size_t>(n) * sizeof(float)); return true;
    case DType::kF16: ref::QuantizeRowF16(x, static_cast<f16_bits*>(out), n); return true;
    case DType::kBF16: ref::QuantizeRowBF16(x, static_cast<bf16_bits*>(out), n); return true;
    case DType::kQ4_0: ref::QuantizeRowQ4_0(x, static_cast<BlockQ4_0*>(out), n); return true;
    case DType::kQ4_1: ref::QuantizeRowQ4_1(x, static_cast<BlockQ4_1*>(out), n); return true;
    default: return false;
  }
}

// The types quantized here, nb blocks.
bool QuantizeHere(DType t, const float* x, int64_t nb, void* out) {
  switch (t) {
    case DType::kQ5_0: QuantizeQ5_0(x, static_cast<BlockQ5_0*>(out), nb); return true;
    case DType::kQ5_1: QuantizeQ5_1(x, static_cast<BlockQ5_1*>(out), nb); return true;
    case DType::kQ8_0: QuantizeQ8_0(x, static_cast<BlockQ8_0*>(out), nb); return true;
    case DType::kQ2_K: QuantizeQ2_K(x, static_cast<BlockQ2_K*>(out), nb); return true;
    case DType::kQ3_K: QuantizeQ3_K(x, static_cast<BlockQ3_K*>(out), nb); return true;
    case DType::kQ4_K: QuantizeQ4_K(x, static_cast<BlockQ4_K*>(out), nb); return true;
    case DType::kQ5_K: QuantizeQ5_K(x, static_cast<BlockQ5_K*>(out), nb); return true;
    case DType::kQ6_K: QuantizeQ6_K(x, static_cast<BlockQ6_K*>(out), nb); return true;
    case DType::kIQ4_NL: QuantizeIQ4_NL(x, static_cast<BlockIQ4_NL*>(out), nb); return true;
    case DType::kIQ4_XS: QuantizeIQ4_XS(x, static_cast<BlockIQ4_XS*>(out), nb); return true;
    default: return false;
  }
}

}  // namespace

bool CanQuantizeWeights(DType t) { return IsKnownStorageDType(static_cast<uint32_t>(t)); }

bool CanQuantizeRowLength(DType t, int64_t n_per_row) {
  return CanQuantizeWeights(t) && n_per_row > 0 && n_per_row % DTypeBlockElems(t) == 0;
}

void QuantizeWeightRows(DType t, const float* x, int64_t rows, int64_t n_per_row, void* out) {
  PAGODA_CHECK_MSG(CanQuantizeWeights(t), "no weight quantizer for this dtype");
  PAGODA_CHECK_MSG(CanQuantizeRowLength(t, n_per_row), "row length is not a multiple of the type's block size");
  PAGODA_CHECK_MSG(rows >= 0, "negative row count");
  const int64_t n = rows * n_per_row;
  if (n == 0) return;
  const bool done = QuantizeWithKernels(t, x, n, out) || QuantizeHere(t, x, n / DTypeBlockElems(t), out);
  PAGODA_CHECK(done);
}

}  // namespace pagoda::quantize
