// LLM(model=None, ...) with vLLM's engine-argument names; generate() runs
// with the GIL released so other Python threads keep going meanwhile.
#include <pybind11/stl.h>

#include "bindings.h"
#include "pagoda/engine/llm.h"
#include "pagoda/engine/memory_size.h"

namespace py = pybind11;

namespace pagoda::python {
namespace {

// An int is bytes; a string is parsed like the CLI's --kv-cache-memory ("2GiB").
int64_t KvCacheBytes(const py::object& value) {
  if (py::isinstance<py::str>(value)) {
    StatusOr<int64_t> bytes = ParseMemorySize(value.cast<std::string>());
    if (!bytes.ok()) throw py::value_error(bytes.status().message());
    return *bytes;
  }
  return value.cast<int64_t>();
}

SchedulingPolicy Policy(const std::string& name) {
  if (name == "fcfs") return SchedulingPolicy::kFcfs;
  if (name == "priority") return SchedulingPolicy::kPriority;
  throw py::value_error("scheduling_policy must be \"fcfs\" or \"priority\", got \"" + name + "\"");
}

// vLLM's generate takes one prompt or a list, and one SamplingParams (or
// None: the defaults) or one per prompt.
std::vector<std::string> Prompts(const py::object& prompts) {
  if (py::isinstance<py::str>(prompts)) return {prompts.cast<std::string>()};
  return prompts.cast<std::vector<std::string>>();
}

std::vector<SamplingParams> ParamsPerPrompt(const py::object& params, size_t num_prompts) {
  if (params.is_none()) return std::vector<SamplingParams>(num_prompts);
  if (py::isinstance<SamplingParams>(params)) {
    return std::vector<SamplingParams>(num_prompts, params.cast<SamplingParams>());
  }
  std::vector<SamplingParams> list = params.cast<std::vector<SamplingParams>>();
  if (list.size() != num_prompts) {
    throw py::value_error("the lengths of prompts and sampling_params must be the same");
  }
  return list;
}

}  // namespace

void BindLlm(py::module_& m) {
  py::class_<LLM>(m, "LLM")
      .def(py::init([](const std::optional<std::string>& model, std::optional<int64_t> max_model_len,
                       const py::object& kv_cache_memory, bool enable_prefix_caching, int32_t max_num_seqs,
                       int32_t max_num_batched_tokens, int32_t block_size, std::optional<int64_t> seed,
                       int32_t threads, const std::string& scheduling_policy, int32_t long_prefill_token_threshold,
                       int32_t max_num_partial_prefills, int32_t max_long_partial_prefills) {
             EngineConfig config;
             config.model = model.value_or("");  // empty: $PAGODA_MODEL, else the default model
             config.max_model_len = max_model_len;
             if (!kv_cache_memory.is_none()) config.kv_cache_memory = KvCacheBytes(kv_cache_memory);
             config.enable_prefix_caching = enable_prefix_caching;
             config.max_num_seqs = max_num_seqs;
             config.max_num_batched_tokens = max_num_batched_tokens;
             config.block_size = block_size;
             config.seed = seed;
             config.threads = threads;
             config.scheduling_policy = Policy(scheduling_policy);
             config.long_prefill_token_threshold = long_prefill_token_threshold;
             config.max_num_partial_prefills = max_num_partial_prefills;
             config.max_long_partial_prefills = max_long_partial_prefills;
             py::gil_scoped_release release;  // loading the model takes a while
             return std::make_unique<LLM>(config);
           }),
           py::arg("model") = py::none(), py::kw_only(), py::arg("max_model_len") = py::none(),
           py::arg("kv_cache_memory") = py::none(), py::arg("enable_prefix_caching") = true,
           py::arg("max_num_seqs") = EngineConfig{}.max_num_seqs,
           py::arg("max_num_batched_tokens") = EngineConfig{}.max_num_batched_tokens,
           py::arg("block_size") = EngineConfig{}.block_size, py::arg("seed") = py::none(),
           py::arg("threads") = 0, py::arg("scheduling_policy") = "fcfs",
           py::arg("long_prefill_token_threshold") = EngineConfig{}.long_prefill_token_threshold,
           py::arg("max_num_partial_prefills") = EngineConfig{}.max_num_partial_prefills,
           py::arg("max_long_partial_prefills") = EngineConfig{}.max_long_partial_prefills)
      .def(
          "generate",
          [](LLM& llm, const py::object& prompts, const py::object& sampling_params) {
            std::vector<std::string> texts = Prompts(prompts);
            std::vector<SamplingParams> params = ParamsPerPrompt(sampling_params, texts.size());
            py::gil_scoped_release release;
            return llm.generate(texts, params);
          },
          py::arg("prompts"), py::arg("sampling_params") = py::none());
}

}  // namespace pagoda::python
