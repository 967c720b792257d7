// SamplingParams with vLLM's keyword arguments and defaults. Construction
// validates, as vLLM's __post_init__ does, raising ValueError with the
// engine's message; the engine normalizes (temperature floor, top_k -1)
// when the request arrives, so attributes read back what was given.
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <pybind11/stl.h>

#include "bindings.h"
#include "pagoda/request/sampling_params.h"

namespace py = pybind11;

namespace pagoda::python {
namespace {

// vLLM accepts one stop string or a list of them.
std::vector<std::string> StopStrings(const py::object& stop) {
  if (stop.is_none()) return {};
  if (py::isinstance<py::str>(stop)) return {stop.cast<std::string>()};
  return stop.cast<std::vector<std::string>>();
}

template <typename T>
std::string OptionalRepr(const std::optional<T>& v) {
  return v ? fmt::format("{}", *v) : "None";
}

// Python's spelling of a float that was given in decimal: 0.7, not 0.699999988 or 0.
std::string FloatRepr(float v) {
  std::string s = fmt::format("{}", v);
  if (s.find_first_of(".ein") == std::string::npos) s += ".0";
  return s;
}

std::string Repr(const SamplingParams& p) {
  std::vector<std::string> stop;
  for (const std::string& s : p.stop) stop.push_back(py::repr(py::str(s)));
  return fmt::format(
      "SamplingParams(n={}, best_of={}, presence_penalty={}, frequency_penalty={}, repetition_penalty={}, "
      "temperature={}, top_p={}, top_k={}, min_p={}, seed={}, stop=[{}], stop_token_ids={}, bad_words={}, "
      "include_stop_str_in_output={}, ignore_eos={}, max_tokens={}, min_tokens={}, logprobs={}, "
      "prompt_logprobs={}, skip_special_tokens={})",
      p.n, OptionalRepr(p.best_of), FloatRepr(p.presence_penalty), FloatRepr(p.frequency_penalty),
      FloatRepr(p.repetition_penalty), FloatRepr(p.temperature), FloatRepr(p.top_p), p.top_k, FloatRepr(p.min_p), OptionalRepr(p.seed), fmt::join(stop, ", "), p.stop_token_ids,
      py::repr(py::cast(p.bad_words)).cast<std::string>(), p.include_stop_str_in_output ? "True" : "False",
      p.ignore_eos ? "True" : "False", OptionalRepr(p.max_tokens), p.min_tokens, OptionalRepr(p.logprobs),
      OptionalRepr(p.prompt_logprobs), p.skip_special_tokens ? "True" : "False");
}

}  // namespace

void BindSamplingParams(py::module_& m) {
  py::class_<SamplingParams>(m, "SamplingParams")
      .def(py::init([](int32_t n, std::optional<int32_t> best_of, float presence_penalty, float frequency_penalty,
                       float repetition_penalty, float temperature, float top_p, int32_t top_k, float min_p,
                       std::optional<int64_t> seed, const py::object& stop,
                       std::optional<std::vector<int32_t>> stop_token_ids,
                       std::optional<std::vector<std::string>> bad_words, bool include_stop_str_in_output,
                       bool ignore_eos, std::optional<int32_t> max_tokens, int32_t min_tokens,
                       std::optional<int32_t> logprobs, std::optional<int32_t> prompt_logprobs,
                       bool skip_special_tokens, bool spaces_between_special_tokens,
                       std::optional<std::map<int32_t, float>> logit_bias,
                       std::optional<std::vector<int32_t>> allowed_token_ids, bool use_beam_search,
                       int32_t beam_width, float length_penalty,
                       std::optional<StructuredOutputsParams> structured_outputs,
                       std::optional<StructuredOutputsParams> guided_decoding) {
             SamplingParams p;
             p.n = n;
             p.best_of = best_of;
             p.presence_penalty = presence_penalty;
             p.frequency_penalty = frequency_penalty;
             p.repetition_penalty = repetition_penalty;
             p.temperature = temperature;
             p.top_p = top_p;
             p.top_k = top_k;
             p.min_p = min_p;
             p.seed = seed;
             p.stop = StopStrings(stop);
             p.stop_token_ids = stop_token_ids.value_or(std::vector<int32_t>{});
             p.bad_words = bad_words.value_or(std::vector<std::string>{});
             p.include_stop_str_in_output = include_stop_str_in_output;
             p.ignore_eos = ignore_eos;
             p.max_tokens = max_tokens;
             p.min_tokens = min_tokens;
             p.logprobs = logprobs;
             p.prompt_logprobs = prompt_logprobs;
             p.skip_special_tokens = skip_special_tokens;
             p.spaces_between_special_tokens = spaces_between_special_tokens;
             p.logit_bias = logit_bias.value_or(std::map<int32_t, float>{});
             p.allowed_token_ids = std::move(allowed_token_ids);
             p.use_beam_search = use_beam_search;
             p.beam_width = beam_width;
             p.length_penalty = length_penalty;
             // vLLM's guided_decoding is the older name of structured_outputs.
             if (structured_outputs && guided_decoding) {
               throw py::value_error("give structured_outputs or guided_decoding, not both");
             }
             p.structured_outputs = structured_outputs ? std::move(structured_outputs) : std::move(guided_decoding);
             if (Status s = p.Validate(); !s.ok()) throw py::value_error(s.message());
             return p;
           }),
           py::kw_only(), py::arg("n") = 1, py::arg("best_of") = py::none(), py::arg("presence_penalty") = 0.0f,
           py::arg("frequency_penalty") = 0.0f, py::arg("repetition_penalty") = 1.0f,
           py::arg("temperature") = 1.0f, py::arg("top_p") = 1.0f, py::arg("top_k") = 0, py::arg("min_p") = 0.0f,
           py::arg("seed") = py::none(), py::arg("stop") = py::none(), py::arg("stop_token_ids") = py::none(),
           py::arg("bad_words") = py::none(), py::arg("include_stop_str_in_output") = false,
           py::arg("ignore_eos") = false, py::arg("max_tokens") = 16, py::arg("min_tokens") = 0,
           py::arg("logprobs") = py::none(), py::arg("prompt_logprobs") = py::none(),
           py::arg("skip_special_tokens") = true, py::arg("spaces_between_special_tokens") = true,
           py::arg("logit_bias") = py::none(), py::arg("allowed_token_ids") = py::none(),
           py::arg("use_beam_search") = false, py::arg("beam_width") = 1, py::arg("length_penalty") = 1.0f,
           py::arg("structured_outputs") = py::none(), py::arg("guided_decoding") = py::none())
      .def_readwrite("n", &SamplingParams::n)
      .def_readwrite("best_of", &SamplingParams::best_of)
      .def_readwrite("presence_penalty", &SamplingParams::presence_penalty)
      .def_readwrite("frequency_penalty", &SamplingParams::frequency_penalty)
      .def_readwrite("repetition_penalty", &SamplingParams::repetition_penalty)
      .def_readwrite("temperature", &SamplingParams::temperature)
      .def_readwrite("top_p", &SamplingParams::top_p)
      .def_readwrite("top_k", &SamplingParams::top_k)
      .def_readwrite("min_p", &SamplingParams::min_p)
      .def_readwrite("seed", &SamplingParams::seed)
      .def_property(
          "stop", [](const SamplingParams& p) { return p.stop; },
          [](SamplingParams& p, const py::object& stop) { p.stop = StopStrings(stop); })
      .def_readwrite("stop_token_ids", &SamplingParams::stop_token_ids)
      .def_readwrite("bad_words", &SamplingParams::bad_words)
      .def_readwrite("include_stop_str_in_output", &SamplingParams::include_stop_str_in_output)
      .def_readwrite("ignore_eos", &SamplingParams::ignore_eos)
      .def_readwrite("max_tokens", &SamplingParams::max_tokens)
      .def_readwrite("min_tokens", &SamplingParams::min_tokens)
      .def_readwrite("logprobs", &SamplingParams::logprobs)
      .def_readwrite("prompt_logprobs", &SamplingParams::prompt_logprobs)
      .def_readwrite("skip_special_tokens", &SamplingParams::skip_special_tokens)
      .def_readwrite("spaces_between_special_tokens", &SamplingParams::spaces_between_special_tokens)
      .def_readwrite("logit_bias", &SamplingParams::logit_bias)
      .def_readwrite("allowed_token_ids", &SamplingParams::allowed_token_ids)
      .def_readwrite("use_beam_search", &SamplingParams::use_beam_search)
      .def_readwrite("beam_width", &SamplingParams::beam_width)
      .def_readwrite("length_penalty", &SamplingParams::length_penalty)
      .def_readwrite("structured_outputs", &SamplingParams::structured_outputs)
      .def("__repr__", &Repr);
}

}  // namespace pagoda::python
