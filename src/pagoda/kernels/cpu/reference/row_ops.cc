// The portable build of the row reductions.
#include "pagoda/kernels/cpu/row_ops_impl.h"

namespace pagoda::kernels::reference {

const cpu::RowOps kRowOps = cpu::kRowOpsOfThisUnit;

}  // namespace pagoda::kernels::reference
