// `pagoda bench throughput`: offline throughput like `vllm bench throughput`.
// Every request is submitted to the engine at once and the clock runs until
// the last one finishes, so the scheduler's batching decides the result.
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <random>

#include "pagoda/apps/bench_common.h"
#include "pagoda/apps/commands.h"
#include "pagoda/engine/engine.h"
#include "pagoda/apps/engine_args.h"
#include "pagoda/tokenizer/tokenizer.h"

namespace pagoda::apps {
namespace {

struct ThroughputArgs {
  std::string model;
  int num_prompts = 200;  // vLLM's 1000 takes too long on a CPU
  int input_len = 128;
  int output_len = 128;
  std::vector<int> random_input_len_range;  // {min, max}, uniform; replaces --input-len
  std::string dataset;                      // JSON Lines of {"prompt": ...}
  int shared_prefix_len = 0;
  bool ignore_eos = true;
  EngineArgs engine;
  int64_t seed = 0;
  std::string output_json;
};

// A prompt as text (from a dataset) or token ids (synthetic).
struct Prompt {
  std::string text;
  std::vector<int32_t> token_ids;
};

StatusOr<std::vector<Prompt>> ReadDataset(const ThroughputArgs& args) {
  std::ifstream in(args.dataset);
  if (!in) return NotFoundError(fmt::format("cannot read {}", args.dataset));
  std::vector<Prompt> prompts;
  std::string line;
  for (int n = 1; std::getline(in, line) && static_cast<int>(prompts.size()) < args.num_prompts; ++n) {
    if (line.empty()) continue;
    const nlohmann::json j = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (!j.is_object() || !j.contains("prompt") || !j["prompt"].is_string()) {
      return InvalidArgumentError(fmt::format("{}:{}: expected {{\"prompt\": \"...\"}}", args.dataset, n));
    }
    prompts.push_back({j["prompt"].get<std::string>(), {}});
  }
  if (prompts.empty()) return InvalidArgumentError(fmt::format("{} has no prompts", args.dataset));
  return prompts;
}

// Random ids from the non-special vocabulary, so no prompt holds EOS or a
// chat marker; with a shared prefix, every prompt starts with the same ids.
StatusOr<std::vector<Prompt>> SyntheticPrompts(const ThroughputArgs& args, const tokenizer::Tokenizer& tok) {
  int min_len = args.input_len, max_len = args.input_len;
  if (!args.random_input_len_range.empty()) {
    min_len = args.random_input_len_range[0];
    max_len = args.random_input_len_range[1];
  }
  if (min_len < 1 || max_len < min_len) return InvalidArgumentError("input lengths must be at least 1 and min <= max");
  if (args.shared_prefix_len < 0 || args.shared_prefix_len > min_len) {
    return InvalidArgumentError("--shared-prefix-len must be within the shortest input length");
  }
  const std::vector<int32_t> vocab = PromptVocabulary(tok);
  std::mt19937_64 rng(static_cast<uint64_t>(args.seed));
  std::uniform_int_distribution<size_t> pick(0, vocab.size() - 1);
  std::uniform_int_distribution<int> length(min_len, max_len);
  std::vector<int32_t> prefix(args.shared_prefix_len);
  for (int32_t& id : prefix) id = vocab[pick(rng)];
  std::vector<Prompt> prompts(args.num_prompts);
  for (Prompt& p : prompts) {
    p.token_ids = prefix;
    p.token_ids.resize(length(rng));
    for (size_t i = prefix.size(); i < p.token_ids.size(); ++i) p.token_ids[i] = vocab[pick(rng)];
  }
  return prompts;
}

Status Throughput(const ThroughputArgs& args, bool ignore_eos_given) {
  if (args.num_prompts < 1) return InvalidArgumentError("--num-prompts must be at least 1");
  if (args.output_len < 1) return InvalidArgumentError("--output-len must be at least 1");
  PAGODA_ASSIGN_OR_RETURN(EngineConfig config, MakeEngineConfig(args.model, args.engine));
  config.seed = args.seed;
  PAGODA_ASSIGN_OR_RETURN(std::unique_ptr<Engine> engine, Engine::Create(config));

  const bool synthetic = args.dataset.empty();
  std::vector<Prompt> prompts;
  if (synthetic) {
    PAGODA_ASSIGN_OR_RETURN(prompts, SyntheticPrompts(args, engine->tokenizer()));
  } else {
    PAGODA_ASSIGN_OR_RETURN(prompts, ReadDataset(args));
  }
  SamplingParams params;  // temperature 1, as vLLM's benchmark samples
  params.max_tokens = args.output_len;
  // Synthetic prompts are noise: without ignore_eos lengths would vary run to run.
  params.ignore_eos = ignore_eos_given ? args.ignore_eos : synthetic;
  params.output_kind = OutputKind::kFinalOnly;

  const auto start = std::chrono::steady_clock::now();
  std::vector<std::shared_ptr<OutputStream>> streams;
  for (size_t i = 0; i < prompts.size(); ++i) {
    std::string id = fmt::format("bench-{}", i);
    StatusOr<std::shared_ptr<OutputStream>> stream =
        synthetic ? engine->AddRequest(std::move(id), prompts[i].token_ids, params)
                  : engine->AddRequest(std::move(id), prompts[i].text, params);
    if (!stream.ok()) return stream.status();
    streams.push_back(std::move(*stream));
  }
  int64_t input_tokens = 0, output_tokens = 0, cached_tokens = 0;
  for (const auto& stream : streams) {
    std::optional<RequestOutput> out = stream->Next();
    if (!out) return InternalError("an output stream ended without output");
    input_tokens += static_cast<int64_t>(out->prompt_token_ids.size());
    cached_tokens += out->num_cached_tokens;
    for (const CompletionOutput& c : out->outputs) output_tokens += static_cast<int64_t>(c.token_ids.size());
  }
  const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const EngineStats stats = engine->Stats();
  const double hit_rate =
      stats.prefix_cache_queries > 0 ? static_cast<double>(stats.prefix_cache_hits) / stats.prefix_cache_queries : 0.0;

  const int64_t total_tokens = input_tokens + output_tokens;
  std::printf("Throughput: %.2f requests/s, %.2f total tokens/s, %.2f output tokens/s\n",
              prompts.size() / elapsed, total_tokens / elapsed, output_tokens / elapsed);
  std::printf("Total num prompt tokens: %lld\nTotal num output tokens: %lld\nPrefix cache hit rate: %.2f%%\n",
              static_cast<long long>(input_tokens), static_cast<long long>(output_tokens), 100 * hit_rate);
  const double steps = static_cast<double>(std::max<int64_t>(stats.num_steps, 1));
  const double overhead_ms = 1e3 * (stats.step_seconds - stats.forward_seconds) / steps;
  std::printf("Engine steps: %lld, %.3f ms each outside the model forward (forward: %.3f ms)\n",
              static_cast<long long>(stats.num_steps), overhead_ms, 1e3 * stats.forward_seconds / steps);
  if (args.output_json.empty()) return Status::Ok();

  const EngineConfig& resolved = engine->config();
  const nlohmann::json result = {
      {"elapsed_time", elapsed},
      {"num_requests", prompts.size()},
      {"total_num_tokens", total_tokens},
      {"total_input_tokens", input_tokens},
      {"total_output_tokens", output_tokens},
      {"requests_per_second", prompts.size() / elapsed},
      {"tokens_per_second", total_tokens / elapsed},
      {"output_tokens_per_second", output_tokens / elapsed},
      {"num_cached_tokens", cached_tokens},
      {"prefix_cache_hit_rate", hit_rate},
      {"num_preemptions", stats.num_preemptions},
      {"num_steps", stats.num_steps},
      {"step_overhead_ms", overhead_ms},
      {"step_forward_ms", 1e3 * stats.forward_seconds / steps},
      {"config",
       {{"model", resolved.model},
        {"dataset", synthetic ? nlohmann::json(nullptr) : nlohmann::json(args.dataset)},
        {"num_prompts", args.num_prompts},
        {"input_len", args.random_input_len_range.empty() ? nlohmann::json(args.input_len)
                                                          : nlohmann::json(args.random_input_len_range)},
        {"output_len", args.output_len},
        {"shared_prefix_len", args.shared_prefix_len},
        {"ignore_eos", params.ignore_eos},
        {"enable_prefix_caching", resolved.enable_prefix_caching},
        {"kv_cache_memory", resolved.kv_cache_memory},
        {"max_model_len", resolved.max_model_len.value_or(0)},
        {"max_num_seqs", resolved.max_num_seqs},
        {"max_num_batched_tokens", resolved.max_num_batched_tokens},
        {"step_latency_target_ms", resolved.step_latency_target * 1e3},
        {"long_prefill_token_threshold", resolved.long_prefill_token_threshold},
        {"max_num_partial_prefills", resolved.max_num_partial_prefills},
        {"max_long_partial_prefills", resolved.max_long_partial_prefills},
        {"threads", resolved.threads},
        {"seed", args.seed}}},
  };
  return WriteJsonFile(args.output_json, result);
}

}  // namespace

void RegisterBench(CLI::App& app, Command& command) {
  auto* bench = app.add_subcommand("bench", "Benchmarks");
  bench->require_subcommand(1);
  auto args = std::make_shared<ThroughputArgs>();
  auto* sub = bench->add_subcommand("throughput", "Offline throughput: all requests at once, as vllm bench throughput");
  sub->add_option("--model", args->model, "GGUF model file (default: the default model)");
  sub->add_option("--num-prompts", args->num_prompts, "Requests to run")->capture_default_str();
  sub->add_option("--input-len", args->input_len, "Prompt tokens per synthetic request")->capture_default_str();
  sub->add_option("--output-len", args->output_len, "Tokens to generate per request")->capture_default_str();
  sub->add_option("--random-input-len-range", args->random_input_len_range,
                  "MIN MAX: synthetic prompt lengths drawn uniformly (instead of --input-len)")
      ->expected(2);
  sub->add_option("--dataset", args->dataset, "JSON Lines file of {\"prompt\": ...} (default: synthetic prompts)");
  sub->add_option("--shared-prefix-len", args->shared_prefix_len,
                  "Synthetic prompts all start with the same this many tokens")
      ->capture_default_str();
  auto* ignore_eos = sub->add_flag("--ignore-eos,!--no-ignore-eos", args->ignore_eos,
                                   "Generate --output-len tokens even past EOS (default: on for synthetic prompts)");
  AddEngineOptions(*sub, args->engine);
  sub->add_option("--seed", args->seed, "Seeds the synthetic prompts and the sampling")->capture_default_str();
  sub->add_option("--output-json", args->output_json, "Write the results and the configuration here");
  sub->callback([&command, args, ignore_eos] {
    const bool given = ignore_eos->count() > 0;
    command = [args, given] { return Throughput(*args, given); };
  });
  RegisterBenchLatency(*bench, command);
  RegisterBenchServe(*bench, command);
}

}  // namespace pagoda::apps
