// `pagoda bench serve`'s flags, with vLLM's bench serve names and defaults
// (a few aliases too: --dataset for --dataset-name, --output-json for
// --save-result), and the vLLM flags it does not support, which are
// accepted by the parser only to be refused by name.
#pragma once

#include <CLI/CLI.hpp>

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "pagoda/base/status.h"

namespace pagoda::apps {

struct ServeBenchArgs {
  std::string base_url;  // beats host and port
  std::string host = "127.0.0.1";
  int port = 8000;
  std::string endpoint = "/v1/completions";
  std::string backend = "openai";
  std::string model;  // empty: the first of GET /v1/models
  std::string served_model_name;
  std::string tokenizer;
  int num_prompts = 1000;
  double request_rate = std::numeric_limits<double>::infinity();
  double burstiness = 1.0;
  std::optional<int> max_concurrency;
  int64_t seed = 0;
  bool ignore_eos = false;
  double temperature = 0;
  std::string dataset = "random";
  std::string dataset_path;
  int random_input_len = 1024;
  int random_output_len = 128;
  double random_range_ratio = 0;
  int prefix_len = 256;
  int suffix_len = 256;
  int num_prefixes = 1;
  std::string output_json;
  bool save_result = false;
  std::string result_filename;
  std::string result_dir;
  bool save_detailed = false;
  std::string percentile_metrics = "ttft,tpot,itl";
  std::string metric_percentiles = "99";
  bool disable_tqdm = false;  // there is no progress bar to disable
};

// Adds the flags, and the refused vLLM flags (hidden from --help) to `refused`.
void AddServeBenchOptions(CLI::App& sub, ServeBenchArgs& args, std::vector<CLI::Option*>& refused);

// The first refused flag that was given, or a value vLLM takes that this
// client does not (another --backend, a chat endpoint, another dataset), as
// an error naming it.
Status CheckSupported(const ServeBenchArgs& args, const std::vector<CLI::Option*>& refused);

}  // namespace pagoda::apps
