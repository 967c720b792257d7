// The reference per-row attention, an AttendRowFn (see attention_plan.h).
#pragma once

#include "pagoda/kernels/cpu/attention_plan.h"

namespace pagoda::kernels::reference {

void AttendRow(const cpu::AttendRowArgs& args);

}  // namespace pagoda::kernels::reference
