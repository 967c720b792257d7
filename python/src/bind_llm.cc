// The engine side of pagoda.LLM (python/pagoda/llm.py subclasses it): the
// constructor takes the engine arguments by vLLM's names; _generate runs a
// batch of text or token prompts with the GIL released, calling back as
// each request finishes (the progress bar), and get_tokenizer gives the
// model's tokenizer and chat template.
#include <pybind11/functional.h>
#include <pybind11/stl.h>

#include <tuple>

#include "bindings.h"
#include "pagoda/engine/kv_cache_sizing.h"
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

// One prompt as python/pagoda/llm.py passes it: (text, token ids, priority).
using PromptTuple = std::tuple<std::optional<std::string>, std::optional<std::vector<int32_t>>, int32_t>;

// Called with (prompt tokens, generated tokens) of each finished request.
using ProgressCallback = std::function<void(int64_t, int64_t)>;

std::vector<RequestOutput> Generate(LLM& llm, const std::vector<PromptTuple>& prompts,
                                    const std::vector<SamplingParams>& params,
                                    const std::optional<ProgressCallback>& on_finished) {
  std::vector<PromptInput> inputs;
  for (const auto& [text, token_ids, priority] : prompts) {
    inputs.push_back(PromptInput{.text = text, .token_ids = token_ids, .priority = priority});
  }
  LLM::FinishedCallback callback = [&](const RequestOutput& out) {
    py::gil_scoped_acquire gil;
    // Ctrl-C lands here, between requests: the rest are aborted.
    if (PyErr_CheckSignals() != 0) throw py::error_already_set();
    if (!on_finished) return;
    int64_t generated = 0;
    for (const CompletionOutput& c : out.outputs) generated += static_cast<int64_t>(c.token_ids.size());
    (*on_finished)(static_cast<int64_t>(out.prompt_token_ids.size()), generated);
  };
  StatusOr<std::vector<RequestOutput>> outputs = [&] {
    py::gil_scoped_release release;
    return llm.GenerateInputs(inputs, params, callback);
  }();
  if (!outputs.ok()) throw py::value_error(outputs.status().ToString());
  return std::move(*outputs);
}

}  // namespace

void BindLlm(py::module_& m) {
  py::class_<LLM>(m, "LLM")
      .def(py::init([](const std::optional<std::string>& model, const std::optional<std::string>& tokenizer,
                       const std::string& dtype, const std::optional<std::string>& quantization,
                       const std::optional<std::string>& revision, std::optional<int64_t> max_model_len,
                       std::optional<double> gpu_memory_utilization, const py::object& kv_cache_memory,
                       bool enable_prefix_caching, int32_t max_num_seqs, std::optional<int32_t> max_num_batched_tokens,
                       int32_t block_size, std::optional<int64_t> seed, int32_t threads,
                       const std::string& scheduling_policy, int32_t long_prefill_token_threshold,
                       int32_t max_num_partial_prefills, int32_t max_long_partial_prefills,
                       const std::string& generation_config, const std::string& kv_cache_dtype,
                       const std::string& load_format) {
             if (gpu_memory_utilization && !kv_cache_memory.is_none()) {
               throw py::value_error(
                   "give gpu_memory_utilization (a share of the available memory for weights plus KV cache) or "
                   "kv_cache_memory (the KV cache's size), not both");
             }
             EngineConfig config;
             config.model = model.value_or("");  // empty: $PAGODA_MODEL, else the default model
             config.tokenizer = tokenizer.value_or("");
             config.dtype = dtype;
             config.quantization = quantization.value_or("");
             config.revision = revision.value_or("");
             config.load_format = load_format;
             config.max_model_len = max_model_len;
             config.gpu_memory_utilization = gpu_memory_utilization;
             if (!kv_cache_memory.is_none()) config.kv_cache_memory = KvCacheBytes(kv_cache_memory);
             config.enable_prefix_caching = enable_prefix_caching;
             config.max_num_seqs = max_num_seqs;
             if (max_num_batched_tokens) {  // vLLM's fixed budget; else sized from step times
               config.max_num_batched_tokens = *max_num_batched_tokens;
               config.step_latency_target = 0;
             }
             config.block_size = block_size;
             config.seed = seed;
             config.threads = threads;
             config.scheduling_policy = Policy(scheduling_policy);
             config.long_prefill_token_threshold = long_prefill_token_threshold;
             config.max_num_partial_prefills = max_num_partial_prefills;
             config.max_long_partial_prefills = max_long_partial_prefills;
             config.generation_config = generation_config;
             auto parsed_kv_cache_dtype = ParseKvCacheDtype(kv_cache_dtype, "kv_cache_dtype");
             if (!parsed_kv_cache_dtype.ok()) throw py::value_error(parsed_kv_cache_dtype.status().message());
             config.kv_cache_dtype = *parsed_kv_cache_dtype;
             py::gil_scoped_release release;  // loading the model takes a while
             return std::make_unique<LLM>(config);
           }),
           py::arg("model") = py::none(), py::kw_only(), py::arg("tokenizer") = py::none(),
           py::arg("dtype") = "auto", py::arg("quantization") = py::none(), py::arg("revision") = py::none(),
           py::arg("max_model_len") = py::none(), py::arg("gpu_memory_utilization") = py::none(),
           py::arg("kv_cache_memory") = py::none(), py::arg("enable_prefix_caching") = true,
           py::arg("max_num_seqs") = EngineConfig{}.max_num_seqs,
           py::arg("max_num_batched_tokens") = py::none(),
           py::arg("block_size") = EngineConfig{}.block_size, py::arg("seed") = py::none(),
           py::arg("threads") = 0, py::arg("scheduling_policy") = "fcfs",
           py::arg("long_prefill_token_threshold") = EngineConfig{}.long_prefill_token_threshold,
           py::arg("max_num_partial_prefills") = EngineConfig{}.max_num_partial_prefills,
           py::arg("max_long_partial_prefills") = EngineConfig{}.max_long_partial_prefills,
           py::arg("generation_config") = "auto", py::arg("kv_cache_dtype") = "auto", py::arg("load_format") = "auto")
      .def("_default_sampling_params",
           [](LLM& llm) {
             SamplingParams params;
             llm.engine().generation_defaults().ApplyTo(params);
             return params;
           })
      .def("_generate", &Generate, py::arg("prompts"), py::arg("sampling_params"), py::arg("on_finished"))
      .def_property_readonly(
          "_scheduling_policy",
          [](LLM& llm) { return llm.engine().config().scheduling_policy == SchedulingPolicy::kPriority ? "priority" : "fcfs"; })
      .def(
          "_tokenizer", [](LLM& llm) { return MakeTokenizer(llm.engine()); }, py::keep_alive<0, 1>());
}

}  // namespace pagoda::python
