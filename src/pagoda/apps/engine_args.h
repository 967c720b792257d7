// The engine's command-line flags, with vLLM's names, shared by the
// subcommands that build an Engine (`serve`, `bench throughput`, `bench latency`).
#pragma once

#include <CLI/CLI.hpp>

#include <cstdint>
#include <optional>
#include <string>

#include "pagoda/base/status.h"
#include "pagoda/engine/engine_config.h"

namespace pagoda::apps {

struct EngineArgs {
  std::string dtype = "auto";
  std::string tokenizer;
  std::string quantization;
  std::string load_format = "auto";
  std::string revision;
  std::optional<double> gpu_memory_utilization;
  double swap_space = 4;
  std::optional<int64_t> max_model_len;
  int max_num_seqs = EngineConfig{}.max_num_seqs;
  std::optional<int> max_num_batched_tokens;  // alone: a fixed budget
  std::optional<double> step_latency_target_ms;
  int long_prefill_token_threshold = EngineConfig{}.long_prefill_token_threshold;
  int max_num_partial_prefills = EngineConfig{}.max_num_partial_prefills;
  int max_long_partial_prefills = EngineConfig{}.max_long_partial_prefills;
  int max_num_waiting_requests = EngineConfig{}.max_num_waiting_requests;
  int block_size = EngineConfig{}.block_size;
  std::string kv_cache_memory;
  bool enable_prefix_caching = true;
  std::string scheduling_policy = "fcfs";
  std::string kv_cache_dtype = "auto";
  int threads = 0;
};

void AddEngineOptions(CLI::App& sub, EngineArgs& args);

// The configuration for `model` (empty: $PAGODA_MODEL or the default model),
// or an error naming the bad flag.
StatusOr<EngineConfig> MakeEngineConfig(const std::string& model, const EngineArgs& args);

}  // namespace pagoda::apps
