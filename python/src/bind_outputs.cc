// RequestOutput, CompletionOutput, Logprob and RequestMetrics with vLLM's
// attribute names. Logprobs come out as vLLM shapes them: one {token_id:
// Logprob} dict per position, the sampled (or actual prompt) token first.
#include <fmt/format.h>
#include <pybind11/stl.h>

#include <chrono>

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

// vLLM's RequestMetrics: times in seconds since the epoch, as time.time()
// gives them (the engine records them on its monotonic clock).
struct PyRequestMetrics {
  double arrival_time = 0;
  std::optional<double> last_token_time;
  std::optional<double> first_scheduled_time;
  std::optional<double> first_token_time;
  std::optional<double> time_in_queue;  // first_scheduled_time - arrival_time
  std::optional<double> finished_time;
};

PyRequestMetrics WallClockMetrics(const RequestMetrics& m) {
  // The engine's clock is steady_clock (EngineCore::Now).
  const double offset =
      std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count() -
      std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
  auto wall = [&](std::optional<double> t) { return t ? std::optional<double>(*t + offset) : std::nullopt; };
  PyRequestMetrics out;
  out.arrival_time = m.arrival_time + offset;
  out.last_token_time = wall(m.last_token_time);
  out.first_scheduled_time = wall(m.first_scheduled_time);
  out.first_token_time = wall(m.first_token_time);
  if (m.first_scheduled_time) out.time_in_queue = *m.first_scheduled_time - m.arrival_time;
  out.finished_time = wall(m.finished_time);
  return out;
}

std::string MetricsRepr(const PyRequestMetrics& m) {
  return fmt::format(
      "RequestMetrics(arrival_time={}, last_token_time={}, first_scheduled_time={}, first_token_time={}, "
      "time_in_queue={}, finished_time={})",
      Repr(py::cast(m.arrival_time)), Repr(py::cast(m.last_token_time)), Repr(py::cast(m.first_scheduled_time)),
      Repr(py::cast(m.first_token_time)), Repr(py::cast(m.time_in_queue)), Repr(py::cast(m.finished_time)));
}

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
      "finished={}, metrics={}, num_cached_tokens={})",
      Repr(py::str(r.request_id)), Repr(py::cast(r.prompt)), Repr(py::cast(r.prompt_token_ids)),
      Repr(PromptLogprobsList(r.prompt_logprobs)), outputs, r.finished ? "True" : "False",
      MetricsRepr(WallClockMetrics(r.metrics)), r.num_cached_tokens);
}

}  // namespace

void BindOutputs(py::module_& m) {
  py::class_<PyRequestMetrics>(m, "RequestMetrics")
      .def_readonly("arrival_time", &PyRequestMetrics::arrival_time)
      .def_readonly("last_token_time", &PyRequestMetrics::last_token_time)
      .def_readonly("first_scheduled_time", &PyRequestMetrics::first_scheduled_time)
      .def_readonly("first_token_time", &PyRequestMetrics::first_token_time)
      .def_readonly("time_in_queue", &PyRequestMetrics::time_in_queue)
      .def_readonly("finished_time", &PyRequestMetrics::finished_time)
      .def("__repr__", &MetricsRepr);

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
      .def_property_readonly("metrics", [](const RequestOutput& r) { return WallClockMetrics(r.metrics); })
      .def("__repr__", &RequestRepr);
}

}  // namespace pagoda::python
