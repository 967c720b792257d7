// How an Engine is built, with vLLM's engine-argument names. Defaults are
// vLLM's for its CPU backend where it has one.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "pagoda/scheduler/scheduling_policy.h"
#include "pagoda/tensor/dtype.h"

namespace pagoda {

// The markers around a model's reasoning (vLLM's --reasoning-parser): a
// structured-output grammar applies to the answer after `end`, not to the
// reasoning.
struct ReasoningMarkers {
  std::string start;
  std::string end;
};

struct EngineConfig {
  // GGUF file or Hugging Face directory; empty: $PAGODA_MODEL, else the
  // default model set up by scripts/setup.sh.
  std::string model;
  // vLLM's --revision: which snapshot of a model id (org/name) to take from
  // the Hugging Face cache; empty: the cache's "main". Refused with a path.
  std::string revision;
  // vLLM's --generation-config: "auto" applies the model's
  // generation_config.json sampling values to requests that do not set
  // them (generation_defaults.h), "vllm" keeps vLLM's own defaults, and a
  // directory names another generation_config.json. The file's
  // eos_token_id ends every request that does not ignore EOS, in all three.
  std::string generation_config = "auto";
  // vLLM's --dtype for a Hugging Face checkpoint's weights (model_files.h).
  std::string dtype = "auto";
  // vLLM's --tokenizer: a Hugging Face directory or GGUF file whose
  // tokenizer (and chat template) to use; empty: the model's own.
  std::string tokenizer;
  // vLLM's --quantization: empty takes what the checkpoint says
  // (model_files.h lists what is accepted).
  std::string quantization;
  // vLLM's --load-format (model_files.h): auto, safetensors, gguf or dummy.
  std::string load_format = "auto";
  // vLLM's --gpu-memory-utilization: when set, the KV cache gets this share
  // of the available memory less the weights (memory_utilization.h) instead
  // of kv_cache_memory.
  std::optional<double> gpu_memory_utilization;
  // Prompt plus output per sequence; default and maximum: the model's context.
  std::optional<int64_t> max_model_len;
  // Sequences running at once (vLLM's default, also on CPU).
  int32_t max_num_seqs = 256;
  // Tokens computed per step, all sequences together: with
  // step_latency_target 0, every step's budget (vLLM's fixed budget; its CPU
  // default for its server is 2048); otherwise the most a sized step takes.
  int32_t max_num_batched_tokens = 2048;
  // Seconds a step should take: each step's token budget is sized from the
  // measured times of recent steps to stay near it (StepTokenBudget), every
  // running decode keeping its token. A CPU's speed varies by orders of
  // magnitude between machines and context lengths, so a fixed token count
  // would be too many on one and too few on another. 0: the fixed budget.
  double step_latency_target = 0.2;
  // Chunked prefill's fairness (vLLM's knobs, defaults chosen for the CPU;
  // docs/performance.md has the measurements). A sequence with more than
  // long_prefill_token_threshold tokens left to compute is "long" and
  // computes at most that many per step, so one long prompt no longer takes
  // a whole step's budget; 0: no cap (vLLM's default, which then takes 4% of
  // max_model_len when max_num_partial_prefills > 1). With
  // max_num_partial_prefills > 1 the prompts that can run in a step share
  // the budget evenly and at most max_long_partial_prefills of them are
  // long: short prompts overtake a long one waiting behind a long prefill.
  // Defaults for the CPU: a short request arriving during an 8k prompt
  // waits for a 256-token step of it, not a 2048-token one (0.41 s against
  // 0.011 s alone), and prompts of up to 256 tokens (a chat turn) prefill
  // side by side. 64 gave that short request 0.17 s but made 512-token
  // prompts 11% slower and a burst of 200-token chats' p99 time to first
  // token 1.6x longer (docs/performance.md, "The long-prefill threshold").
  int32_t long_prefill_token_threshold = 256;
  int32_t max_num_partial_prefills = 4;
  int32_t max_long_partial_prefills = 1;
  // Requests accepted but not yet scheduled (still in the engine's inbox,
  // or waiting in the scheduler) beyond which AddRequest refuses new ones
  // with UNAVAILABLE; 0: unbounded.
  int32_t max_num_waiting_requests = 0;
  int32_t block_size = 16;
  // Bytes for the KV cache arena (vLLM's VLLM_CPU_KVCACHE_SPACE, 4 GiB by
  // default); ParseMemorySize reads "2GiB" and the like.
  int64_t kv_cache_memory = int64_t{4} << 30;
  bool enable_prefix_caching = true;
  SchedulingPolicy scheduling_policy = SchedulingPolicy::kFcfs;
  // Seeds the random streams of requests that bring no seed of their own,
  // in the order they are added, so a whole run repeats; unset: OS entropy.
  std::optional<int64_t> seed;
  int32_t threads = 0;  // compute threads; 0 = one per physical core
  // The CPU kernel set by name (kernel_set.h); empty: the best this CPU
  // supports. Tests that compare with llama.cpp's exact logits name a set
  // that keeps GGML's operation order.
  std::string kernel_set;
  // The KV cache's element type; unset ("auto"): BF16 where the kernel set
  // reads it on tiles (amx) and the model's shape fits that order
  // (kernels::cpu::KvPairsShapeOk), else F16. BF16 elsewhere runs, slowly,
  // through the reference attention.
  std::optional<DType> kv_cache_dtype;
  // The model_name label of the engine's metrics; empty: the model path.
  std::string served_model_name;
  // Set: grammars wait for the reasoning to end.
  std::optional<ReasoningMarkers> reasoning;
};

}  // namespace pagoda
