// The row reductions the sampler tests run with: the best kernel set's, as
// an engine on this machine would (tests/kernels checks every set's against
// the portable build, bit for bit).
#pragma once

#include "pagoda/kernels/cpu/kernel_set.h"

namespace pagoda::testing {

inline const kernels::cpu::RowOps& TestRowOps() { return *kernels::cpu::BestKernelSet().rows; }

}  // namespace pagoda::testing
