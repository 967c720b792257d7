#include "pagoda/apps/engine_args.h"

#include "pagoda/apps/kv_cache_size.h"
#include "pagoda/apps/model_files.h"
#include "pagoda/engine/memory_size.h"

namespace pagoda::apps {

void AddEngineOptions(CLI::App& sub, EngineArgs& args) {
  sub.add_option("--max-model-len", args.max_model_len, "Prompt plus output per sequence (default: the model's)");
  sub.add_option("--max-num-seqs", args.max_num_seqs, "Sequences running at once")->capture_default_str();
  sub.add_option("--max-num-batched-tokens", args.max_num_batched_tokens, "Tokens computed per step")
      ->capture_default_str();
  sub.add_option("--block-size", args.block_size, "Tokens per KV block")->capture_default_str();
  sub.add_option("--kv-cache-memory", args.kv_cache_memory, "KV cache size, e.g. 2GiB (default: 4GiB)");
  sub.add_flag("--enable-prefix-caching,!--no-enable-prefix-caching", args.enable_prefix_caching,
               "Reuse KV blocks of shared prompt prefixes (default: on)");
  sub.add_option("--scheduling-policy", args.scheduling_policy, "fcfs or priority")->capture_default_str();
  sub.add_option("--kv-cache-dtype", args.kv_cache_dtype, "f16 or f32")->capture_default_str();
  sub.add_option("--threads", args.threads, "Compute threads (default: one per physical core)");
}

StatusOr<EngineConfig> MakeEngineConfig(const std::string& model, const EngineArgs& args) {
  EngineConfig config;
  config.model = ResolveModelPath(model);
  config.max_model_len = args.max_model_len;
  config.max_num_seqs = args.max_num_seqs;
  config.max_num_batched_tokens = args.max_num_batched_tokens;
  config.block_size = args.block_size;
  config.enable_prefix_caching = args.enable_prefix_caching;
  config.threads = args.threads;
  if (!args.kv_cache_memory.empty()) {
    PAGODA_ASSIGN_OR_RETURN(config.kv_cache_memory, ParseMemorySize(args.kv_cache_memory));
  }
  PAGODA_ASSIGN_OR_RETURN(config.kv_cache_dtype, ParseKvCacheDtype(args.kv_cache_dtype));
  if (args.scheduling_policy == "priority") {
    config.scheduling_policy = SchedulingPolicy::kPriority;
  } else if (args.scheduling_policy != "fcfs") {
    return InvalidArgumentError("--scheduling-policy must be fcfs or priority");
  }
  return config;
}

}  // namespace pagoda::apps
