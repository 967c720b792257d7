// RequestOutput, CompletionOutput and Logprob with vLLM's attribute names.
// Logprobs come out as vLLM shapes them: one {token_id: Logprob} dict per
// position, the sampled (or actual prompt) token first.
#include <fmt/format.h>
#include <pybind11/stl.h>

#include "bindings.h"
#include "pagoda/engine/request_output.h"

namespace py = pybind11;

namespace pagoda::python {
namespace {

py::dict PositionDict(const PositionLogprobs& position) {
  py::dict d;
  for (const Logprob& lp : position) d[py::int_(lp.token_id)] = py::cast(lp);
  return d;
}

py::object LogprobsList(const std::optional<std::vector<PositionLogprobs>>& logprobs) {
  if (!logprobs) return py::none();
  py::list list;
  for (const PositionLogprobs& p : *logprobs) list.append(PositionDict(p));
  return list;
}

// The first prompt position is None, as in vLLM: nothing predicts it.
py::object PromptLogprobsList(const std::optional<std::vector<std::optional<PositionLogprobs>>>& logprobs) {
  if (!logprobs) return py::none();
  py::list list;
  for (const auto& p : *logprobs) list.append(p ? py::object(PositionDict(*p)) : py::none());
  return list;
}

py::object FinishReasonOrNone(const CompletionOutput& c) {
  return c.finish_reason ? py::object(py::str(FinishReasonName(*c.finish_reason))) : py::none();
}

py::object StopReasonOrNone(const CompletionOutput& c) {
  if (!c.stop_reason) return py::none();
  return std::visit([](const auto& v) -> py::object { return py::cast(v); }, *c.stop_reason);
}

std::string Repr(const py::handle& h) { return py::repr(h).cast<std::string>(); }

std::string CompletionRepr(const CompletionOutput& c) {
  return fmt::format(
      "CompletionOutput(index={}, text={}, token_ids={}, cumulative_logprob={}, logprobs={}, finish_reason={}, "
      "stop_reason={})",
      c.index, Repr(py::str(c.text)), Repr(py::cast(c.token_ids)), Repr(py::cast(c.cumulative_logprob)),
      Repr(LogprobsList(c.logprobs)), Repr(FinishReasonOrNone(c)), Repr(StopReasonOrNone(c)));
}

std::string RequestRepr(const RequestOutput& r) {
  std::string outputs;
  for (const CompletionOutput& c : r.outputs) outputs += (outputs.empty() ? "" : ", ") + CompletionRepr(c);
  return fmt::format(
      "RequestOutput(request_id={}, prompt={}, prompt_token_ids={}, prompt_logprobs={}, outputs=[{}], "
      "finished={}, num_cached_tokens={})",
      Repr(py::str(r.request_id)), Repr(py::cast(r.prompt)), Repr(py::cast(r.prompt_token_ids)),
      Repr(PromptLogprobsList(r.prompt_logprobs)), outputs, r.finished ? "True" : "False", r.num_cached_tokens);
}

}  // namespace

void BindOutputs(py::module_& m) {
  py::class_<Logprob>(m, "Logprob")
      .def_readonly("logprob", &Logprob::logprob)
      .def_readonly("rank", &Logprob::rank)
      .def_readonly("decoded_token", &Logprob::decoded_token)
      .def("__repr__", [](const Logprob& lp) {
        return fmt::format("Logprob(logprob={}, rank={}, decoded_token={})", Repr(py::float_(lp.logprob)), lp.rank,
                           Repr(py::str(lp.decoded_token)));
      });

  py::class_<CompletionOutput>(m, "CompletionOutput")
      .def_readonly("index", &CompletionOutput::index)
      .def_readonly("text", &CompletionOutput::text)
      .def_readonly("token_ids", &CompletionOutput::token_ids)
      .def_readonly("cumulative_logprob", &CompletionOutput::cumulative_logprob)
      .def_property_readonly("logprobs", [](const CompletionOutput& c) { return LogprobsList(c.logprobs); })
      .def_property_readonly("finish_reason", &FinishReasonOrNone)
      .def_property_readonly("stop_reason", &StopReasonOrNone)
      .def("finished", &CompletionOutput::finished)
      .def("__repr__", &CompletionRepr);

  py::class_<RequestOutput>(m, "RequestOutput")
      .def_readonly("request_id", &RequestOutput::request_id)
      .def_readonly("prompt", &RequestOutput::prompt)
      .def_readonly("prompt_token_ids", &RequestOutput::prompt_token_ids)
      .def_property_readonly("prompt_logprobs",
                             [](const RequestOutput& r) { return PromptLogprobsList(r.prompt_logprobs); })
      .def_readonly("outputs", &RequestOutput::outputs)
      .def_readonly("finished", &RequestOutput::finished)
      .def_readonly("num_cached_tokens", &RequestOutput::num_cached_tokens)
      .def("__repr__", &RequestRepr);
}

}  // namespace pagoda::python
