// The row reductions built with AVX-512 and 512-bit vectors: each loop's 16
// float lanes are one register, so the sampler's exponential passes over a
// vocabulary take half the instructions of the AVX2 build. The lanes and
// their order are row_ops_impl.h's, so the bits are the AVX2 build's.
#include "pagoda/kernels/cpu/row_ops_impl.h"

namespace pagoda::kernels::cpu::avx512 {

const RowOps kRowOps = kRowOpsOfThisUnit;

}  // namespace pagoda::kernels::cpu::avx512
