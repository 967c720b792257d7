// _pagoda: Pagoda's engine for Python (see python/pagoda/__init__.py).
#include "bindings.h"

PYBIND11_MODULE(_pagoda, m) {
  m.doc() = "Pagoda: LLM inference engine (vLLM-shaped offline API)";
  pagoda::python::BindStructuredOutputsParams(m);
  pagoda::python::BindSamplingParams(m);
  pagoda::python::BindOutputs(m);
  pagoda::python::BindTokenizer(m);
  pagoda::python::BindLlm(m);
}
