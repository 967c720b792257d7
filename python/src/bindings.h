// The pieces of the _pagoda extension module, one per bound class family.
#pragma once

#include <pybind11/pybind11.h>

namespace pagoda {
class Engine;  // engine/engine.h
}  // namespace pagoda

namespace pagoda::python {

void BindStructuredOutputsParams(pybind11::module_& m);
void BindSamplingParams(pybind11::module_& m);
void BindOutputs(pybind11::module_& m);
void BindTokenizer(pybind11::module_& m);
void BindLlm(pybind11::module_& m);

// The engine's tokenizer and chat template as a _pagoda.Tokenizer, which
// borrows from the engine (bind_tokenizer.cc).
pybind11::object MakeTokenizer(const Engine& engine);

}  // namespace pagoda::python
