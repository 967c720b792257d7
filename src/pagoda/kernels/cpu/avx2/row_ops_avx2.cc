// The row reductions built with AVX2 (about half the time of the portable
// build's exp loops).
#include "pagoda/kernels/cpu/row_ops_impl.h"

namespace pagoda::kernels::cpu::avx2 {

const RowOps kRowOps = kRowOpsOfThisUnit;

}  // namespace pagoda::kernels::cpu::avx2
