#include "pagoda/apps/bench_serve_args.h"

#include <fmt/format.h>

namespace pagoda::apps {
namespace {

// vLLM bench serve flags that this client does not implement.
constexpr const char* kRefusedFlags[] = {
    "--tokenizer-mode", "--use-beam-search", "--goodput", "--profile", "--logprobs", "--top-p", "--top-k",
    "--min-p", "--frequency-penalty", "--presence-penalty", "--repetition-penalty", "--trust-remote-code",
    "--lora-modules", "--ramp-up-strategy", "--ramp-up-start-rps", "--ramp-up-end-rps", "--request-id-prefix",
    "--extra-body", "--header", "--metadata", "--label", "--append-result", "--num-warmups",
    "--ready-check-timeout-sec", "--plot-timeline", "--timeline-itl-thresholds", "--insecure",
    "--skip-chat-template", "--disable-shuffle", "--no-oversample", "--endpoint-type", "--random-prefix-len",
    "--random-batch-size", "--sharegpt-output-len", "--sonnet-input-len", "--sonnet-output-len",
    "--sonnet-prefix-len", "--hf-name", "--hf-split", "--hf-subset", "--hf-output-len", "--custom-output-len",
    "--prefix-repetition-prefix-len", "--prefix-repetition-suffix-len", "--prefix-repetition-num-prefixes",
    "--prefix-repetition-output-len", "--request-rate-schedule", "--max-connections"};

void AddTrafficOptions(CLI::App& sub, ServeBenchArgs& args) {
  sub.add_option("--base-url", args.base_url, "Server URL, e.g. http://127.0.0.1:8000 (instead of --host/--port)");
  sub.add_option("--host", args.host, "Server host")->capture_default_str();
  sub.add_option("--port", args.port, "Server port")->capture_default_str();
  sub.add_option("--endpoint", args.endpoint, "Completions endpoint path")->capture_default_str();
  sub.add_option("--backend", args.backend, "openai or vllm (both: the OpenAI completions API)")->capture_default_str();
  sub.add_option("--model", args.model, "Model name sent with each request (default: the first of GET /v1/models)");
  sub.add_option("--served-model-name", args.served_model_name, "Send this model name instead of --model's");
  sub.add_option("--tokenizer", args.tokenizer,
                 "GGUF file, Hugging Face directory or cached model id whose non-special tokens synthetic prompts "
                 "are drawn from (default: ids 1000-29999)");
  sub.add_option("--num-prompts", args.num_prompts, "Requests to send")->capture_default_str();
  sub.add_option("--request-rate", args.request_rate, "Requests per second (default inf: all at once)");
  sub.add_option("--burstiness", args.burstiness,
                 "Gamma shape of the arrival gaps at a finite --request-rate: 1 Poisson, <1 burstier, >1 steadier")
      ->capture_default_str();
  sub.add_option("--max-concurrency", args.max_concurrency, "Requests in flight at most (default: no limit)");
  sub.add_option("--seed", args.seed, "Seeds the prompts and the arrivals")->capture_default_str();
  sub.add_flag("--ignore-eos", args.ignore_eos, "Send \"ignore_eos\": true, so each request makes its output length");
  sub.add_option("--temperature", args.temperature, "Sampling temperature sent with each request")->capture_default_str();
  sub.add_flag("--disable-tqdm", args.disable_tqdm, "Accepted for vLLM's scripts: there is no progress bar");
}

void AddDatasetOptions(CLI::App& sub, ServeBenchArgs& args) {
  sub.add_option("--dataset,--dataset-name", args.dataset,
                 "random: token-id prompts of --random-input-len; shared-prefix: --num-prefixes prefixes of "
                 "--prefix-len ids, each request one of them plus --suffix-len ids of its own; file: --dataset-path")
      ->capture_default_str();
  sub.add_option("--dataset-path", args.dataset_path,
                 "JSON Lines, one {\"prompt\": \"text\" or [ids], \"output_len\": N} a line (output_len optional: "
                 "--random-output-len); cycled through when shorter than --num-prompts");
  sub.add_option("--random-input-len", args.random_input_len, "Prompt tokens per random request")->capture_default_str();
  sub.add_option("--random-output-len", args.random_output_len, "max_tokens per synthetic request")->capture_default_str();
  sub.add_option("--random-range-ratio", args.random_range_ratio,
                 "Random lengths uniform in [len * (1 - r), len * (1 + r)], r in [0, 1)")
      ->capture_default_str();
  sub.add_option("--prefix-len", args.prefix_len, "shared-prefix: tokens every request shares")->capture_default_str();
  sub.add_option("--suffix-len", args.suffix_len, "shared-prefix: tokens of each request's own")->capture_default_str();
  sub.add_option("--num-prefixes", args.num_prefixes, "shared-prefix: distinct prefixes, used in turn")
      ->capture_default_str();
}

void AddResultOptions(CLI::App& sub, ServeBenchArgs& args) {
  sub.add_option("--output-json", args.output_json, "Write the result as JSON here");
  sub.add_flag("--save-result", args.save_result, "Write the result as JSON to --result-dir/--result-filename");
  sub.add_option("--result-filename", args.result_filename,
                 "Default: openai-{rate}qps[-concurrency{n}]-{model}-{date}.json, as vLLM names it");
  sub.add_option("--result-dir", args.result_dir, "Default: the current directory");
  sub.add_flag("--save-detailed", args.save_detailed,
               "Add per-request arrays: input_lens, output_lens, ttfts, itls, e2els (s), generated_texts, errors");
  sub.add_option("--percentile-metrics", args.percentile_metrics, "Comma-separated, of ttft, tpot, itl, e2el")
      ->capture_default_str();
  sub.add_option("--metric-percentiles", args.metric_percentiles, "Comma-separated percentiles, e.g. 25,50,99")
      ->capture_default_str();
}

}  // namespace

void AddServeBenchOptions(CLI::App& sub, ServeBenchArgs& args, std::vector<CLI::Option*>& refused) {
  AddTrafficOptions(sub, args);
  AddDatasetOptions(sub, args);
  AddResultOptions(sub, args);
  // Each takes any number of values, so that the refusal, not a parse error
  // about its value, is what the user reads.
  static std::vector<std::string> ignored_values;
  for (const char* flag : kRefusedFlags) {
    refused.push_back(
        sub.add_option(flag, ignored_values)->expected(0, CLI::detail::expected_max_vector_size)->group(""));
  }
}

Status CheckSupported(const ServeBenchArgs& args, const std::vector<CLI::Option*>& refused) {
  for (const CLI::Option* option : refused) {
    if (option->count() > 0) {
      return UnimplementedError(
          fmt::format("--{} (a vllm bench serve flag) is not supported by pagoda bench serve", option->get_lnames().front()));
    }
  }
  if (args.backend != "openai" && args.backend != "vllm") {
    return UnimplementedError(fmt::format(
        "--backend {} is not supported by pagoda bench serve (only openai and vllm: the completions API)",
        args.backend));
  }
  if (args.endpoint.ends_with("chat/completions") || !args.endpoint.ends_with("completions")) {
    return UnimplementedError(fmt::format("--endpoint {}: only a completions endpoint (e.g. /v1/completions) is "
                                          "supported by pagoda bench serve",
                                          args.endpoint));
  }
  if (args.dataset != "random" && args.dataset != "shared-prefix" && args.dataset != "file") {
    return UnimplementedError(fmt::format(
        "--dataset-name {} is not supported by pagoda bench serve (random, shared-prefix or file)", args.dataset));
  }
  return Status::Ok();
}

}  // namespace pagoda::apps
