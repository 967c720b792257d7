// The pieces of the _pagoda extension module, one per bound class family.
#pragma once

#include <pybind11/pybind11.h>

namespace pagoda::python {

void BindStructuredOutputsParams(pybind11::module_& m);
void BindSamplingParams(pybind11::module_& m);
void BindOutputs(pybind11::module_& m);
void BindLlm(pybind11::module_& m);

}  // namespace pagoda::python
