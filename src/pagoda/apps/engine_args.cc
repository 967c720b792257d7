#include "pagoda/apps/engine_args.h"

#include <fmt/format.h>

#include <cmath>

#include "pagoda/engine/kv_cache_sizing.h"
#include "pagoda/engine/model_files.h"
#include "pagoda/engine/memory_size.h"

namespace pagoda::apps {

namespace {

// The engine checks these too, by their field names; here the error names
// the flag.
Status CheckPrefillAndQueueFlags(const EngineArgs& args) {
  if (args.long_prefill_token_threshold < 0) {
    return InvalidArgumentError("--long-prefill-token-threshold must be at least 0 (0: no cap)");
  }
  if (args.max_num_partial_prefills < 1) return InvalidArgumentError("--max-num-partial-prefills must be at least 1");
  if (args.max_long_partial_prefills < 1 || args.max_long_partial_prefills > args.max_num_partial_prefills) {
    return InvalidArgumentError(fmt::format(
        "--max-long-partial-prefills ({}) must be at least 1 and at most --max-num-partial-prefills ({})",
        args.max_long_partial_prefills, args.max_num_partial_prefills));
  }
  if (args.max_num_waiting_requests < 0) {
    return InvalidArgumentError("--max-num-waiting-requests must be at least 0 (0: unbounded)");
  }
  return Status::Ok();
}

}  // namespace

void AddEngineOptions(CLI::App& sub, EngineArgs& args) {
  sub.add_option("--dtype", args.dtype,
                 "Weights of a Hugging Face checkpoint: auto (as stored; float32 checkpoints in bfloat16, as "
                 "vLLM's CPU backend), bfloat16, float16/half or float32/float, converted once at load. A GGUF "
                 "file keeps its stored types (auto only). Activations are float32 on the CPU")
      ->capture_default_str();
  sub.add_option("--tokenizer", args.tokenizer,
                 "Hugging Face directory or GGUF file whose tokenizer and chat template to use (default: the model's)");
  sub.add_option("-q,--quantization", args.quantization,
                 "The quantization method: gguf for a GGUF file; for a Hugging Face checkpoint the method its "
                 "quantization_config names (awq, gptq, compressed-tensors, fp8), or fp8 for a float checkpoint, "
                 "quantized at load to per-tensor e4m3 as vLLM does. Default: what the model says");
  sub.add_option("--load-format", args.load_format,
                 "auto (a GGUF file or a Hugging Face directory, by what --model is), safetensors (a Hugging Face "
                 "directory), gguf (a GGUF file), or dummy: random weights of the shapes a Hugging Face directory's "
                 "config.json gives (Llama, Mistral, Qwen2, Qwen3), with its tokenizer, or a placeholder one where "
                 "it has none. vLLM's other formats are refused")
      ->capture_default_str();
  sub.add_option("--revision", args.revision,
                 "Branch, tag or commit of a model id (org/name) in the Hugging Face cache (default: main)");
  sub.add_option("--gpu-memory-utilization", args.gpu_memory_utilization,
                 "On the CPU: the share of available memory (MemAvailable at start-up) for the weights plus the KV "
                 "cache, as vLLM's CPU backend sizes its cache; the KV cache gets that share less the weights. "
                 "Default: --kv-cache-memory");
  sub.add_option("--swap-space", args.swap_space,
                 "GiB of CPU swap space per GPU in vLLM; Pagoda preempts by recomputation and keeps the KV cache in "
                 "memory already, so it reserves none (must be >= 0)")
      ->capture_default_str();
  sub.add_option("--max-model-len", args.max_model_len, "Prompt plus output per sequence (default: the model's)");
  sub.add_option("--max-num-seqs", args.max_num_seqs, "Sequences running at once")->capture_default_str();
  sub.add_option("--max-num-batched-tokens", args.max_num_batched_tokens,
                 fmt::format("Tokens computed per step, every step (vLLM's fixed budget). Default: sized from "
                             "measured step times (--step-latency-target-ms), at most {}; given with "
                             "--step-latency-target-ms, the most a sized step takes",
                             EngineConfig{}.max_num_batched_tokens));
  sub.add_option("--step-latency-target-ms", args.step_latency_target_ms,
                 fmt::format("Milliseconds a step should take: each step computes as many tokens as the recent "
                             "steps' measured times say fit, every running decode included (default {:.0f}, unless "
                             "--max-num-batched-tokens alone fixes the budget; 0: a fixed budget)",
                             EngineConfig{}.step_latency_target * 1e3));
  sub.add_option("--long-prefill-token-threshold", args.long_prefill_token_threshold,
                 "Most tokens one request prefills per step; a request with more left is long. 0: no cap (then 4% "
                 "of --max-model-len with --max-num-partial-prefills > 1). The default keeps a CPU step short "
                 "enough that short requests are not stuck behind a long prompt")
      ->capture_default_str();
  sub.add_option("--max-num-partial-prefills", args.max_num_partial_prefills,
                 "Concurrent partial prefills: up to this many prompts prefilling in a step share its tokens "
                 "evenly; above 1, --max-long-partial-prefills applies")
      ->capture_default_str();
  sub.add_option("--max-long-partial-prefills", args.max_long_partial_prefills,
                 "Of those, how many may be long: shorter prompts overtake a long one waiting beyond this")
      ->capture_default_str();
  sub.add_option("--max-num-waiting-requests", args.max_num_waiting_requests,
                 "Requests waiting to be scheduled beyond which new ones are refused (HTTP 503). 0: unbounded")
      ->capture_default_str();
  sub.add_option("--block-size", args.block_size, "Tokens per KV block")->capture_default_str();
  sub.add_option("--kv-cache-memory", args.kv_cache_memory, "KV cache size, e.g. 2GiB (default: 4GiB)");
  sub.add_flag("--enable-prefix-caching,!--no-enable-prefix-caching", args.enable_prefix_caching,
               "Reuse KV blocks of shared prompt prefixes (default: on)");
  sub.add_option("--scheduling-policy", args.scheduling_policy, "fcfs or priority")->capture_default_str();
  sub.add_option("--kv-cache-dtype", args.kv_cache_dtype,
                 "auto (bfloat16 where the AMX kernels attend on it, else float16), bfloat16, float16 or float32")
      ->capture_default_str();
  sub.add_option("--threads", args.threads, "Compute threads (default: one per physical core)");
}

StatusOr<EngineConfig> MakeEngineConfig(const std::string& model, const EngineArgs& args) {
  EngineConfig config;
  PAGODA_ASSIGN_OR_RETURN(config.model, LocateModel(ResolveModelPath(model), args.revision));
  config.dtype = args.dtype;
  config.tokenizer = args.tokenizer;
  config.quantization = args.quantization;
  config.load_format = args.load_format;
  // config.model is the snapshot the revision named, so the engine needs no revision.
  if (args.gpu_memory_utilization) {
    if (!args.kv_cache_memory.empty()) {
      return InvalidArgumentError("--gpu-memory-utilization and --kv-cache-memory both size the KV cache; give one");
    }
    if (!(*args.gpu_memory_utilization > 0.0 && *args.gpu_memory_utilization <= 1.0)) {
      return InvalidArgumentError(fmt::format("--gpu-memory-utilization {} must be in (0, 1]", *args.gpu_memory_utilization));
    }
    config.gpu_memory_utilization = args.gpu_memory_utilization;
  }
  if (!(args.swap_space >= 0)) return InvalidArgumentError(fmt::format("--swap-space {} must be at least 0", args.swap_space));
  config.max_model_len = args.max_model_len;
  config.max_num_seqs = args.max_num_seqs;
  if (args.max_num_batched_tokens) {
    // vLLM's flag alone fixes every step's budget; with a latency target it caps the sized one.
    config.max_num_batched_tokens = *args.max_num_batched_tokens;
    config.step_latency_target = 0;
  }
  if (args.step_latency_target_ms) {
    if (!(*args.step_latency_target_ms >= 0) || !std::isfinite(*args.step_latency_target_ms)) {
      return InvalidArgumentError(fmt::format("--step-latency-target-ms {} must be at least 0 (0: a fixed budget)",
                                              *args.step_latency_target_ms));
    }
    config.step_latency_target = *args.step_latency_target_ms / 1e3;
  }
  config.long_prefill_token_threshold = args.long_prefill_token_threshold;
  config.max_num_partial_prefills = args.max_num_partial_prefills;
  config.max_long_partial_prefills = args.max_long_partial_prefills;
  config.max_num_waiting_requests = args.max_num_waiting_requests;
  config.block_size = args.block_size;
  config.enable_prefix_caching = args.enable_prefix_caching;
  config.threads = args.threads;
  if (!args.kv_cache_memory.empty()) {
    PAGODA_ASSIGN_OR_RETURN(config.kv_cache_memory, ParseMemorySize(args.kv_cache_memory));
  }
  PAGODA_ASSIGN_OR_RETURN(config.kv_cache_dtype, ParseKvCacheDtype(args.kv_cache_dtype, "--kv-cache-dtype"));
  if (args.scheduling_policy == "priority") {
    config.scheduling_policy = SchedulingPolicy::kPriority;
  } else if (args.scheduling_policy != "fcfs") {
    return InvalidArgumentError("--scheduling-policy must be fcfs or priority");
  }
  PAGODA_RETURN_IF_ERROR(CheckPrefillAndQueueFlags(args));
  return config;
}

}  // namespace pagoda::apps
