// `pagoda bench latency`: the latency of one batch, like `vllm bench latency`.
// Each iteration submits --batch-size requests of --input-len random prompt
// tokens together and waits until all have generated --output-len tokens.
// Beside vLLM's latency percentiles it splits each iteration at the moment
// the last request of the batch got its first token: the prompt phase
// before, the decode phase after, so prompt and decode tokens/s come from
// the same runs.
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>

#include "pagoda/apps/bench_common.h"
#include "pagoda/apps/commands.h"
#include "pagoda/apps/engine_args.h"
#include "pagoda/engine/engine.h"
#include "pagoda/tokenizer/tokenizer.h"

namespace pagoda::apps {
namespace {

struct LatencyArgs {
  std::string model;
  int input_len = 32;
  int output_len = 128;
  int batch_size = 8;
  int n = 1;
  // vLLM runs 10 and 30; a CPU batch takes seconds, so fewer by default.
  int num_iters_warmup = 2;
  int num_iters = 5;
  EngineArgs engine;
  int64_t seed = 0;
  std::string output_json;
};

struct Iteration {
  double latency = 0;  // submission to the last token of the batch
  double prompt = 0;   // submission to the last first token
  double decode = 0;   // the rest
};

// The p-th percentile of sorted values, interpolated linearly (NumPy's default).
double Percentile(const std::vector<double>& sorted, double p) {
  const double at = p / 100.0 * static_cast<double>(sorted.size() - 1);
  const size_t below = static_cast<size_t>(std::floor(at));
  const size_t above = std::min(below + 1, sorted.size() - 1);
  return sorted[below] + (at - static_cast<double>(below)) * (sorted[above] - sorted[below]);
}

StatusOr<Iteration> RunBatch(Engine& engine, const std::vector<std::vector<int32_t>>& prompts,
                             const SamplingParams& params, int iteration) {
  std::vector<std::shared_ptr<OutputStream>> streams;
  for (size_t i = 0; i < prompts.size(); ++i) {
    PAGODA_ASSIGN_OR_RETURN(std::shared_ptr<OutputStream> stream,
                            engine.AddRequest(fmt::format("latency-{}-{}", iteration, i), prompts[i], params));
    streams.push_back(std::move(stream));
  }
  double start = INFINITY, last_first_token = 0, end = 0;
  for (const auto& stream : streams) {
    std::optional<RequestOutput> out = stream->Next();
    if (!out) return InternalError("an output stream ended without output");
    const RequestMetrics& m = out->metrics;
    if (!m.first_token_time || !m.last_token_time) return InternalError("a request finished without tokens");
    start = std::min(start, m.arrival_time);
    last_first_token = std::max(last_first_token, *m.first_token_time);
    end = std::max(end, *m.last_token_time);
  }
  return Iteration{end - start, last_first_token - start, end - last_first_token};
}

Status Latency(const LatencyArgs& args) {
  if (args.input_len < 1 || args.output_len < 2 || args.batch_size < 1 || args.n < 1 || args.num_iters < 1 ||
      args.num_iters_warmup < 0) {
    return InvalidArgumentError(
        "--input-len, --batch-size, --n and --num-iters must be at least 1, --output-len at least 2 (a decode "
        "phase), --num-iters-warmup at least 0");
  }
  PAGODA_ASSIGN_OR_RETURN(EngineConfig config, MakeEngineConfig(args.model, args.engine));
  config.seed = args.seed;
  PAGODA_ASSIGN_OR_RETURN(std::unique_ptr<Engine> engine, Engine::Create(config));

  // Random ids from the non-special vocabulary, as vLLM's dummy prompts.
  const std::vector<int32_t> vocab = PromptVocabulary(engine->tokenizer());
  std::mt19937_64 rng(static_cast<uint64_t>(args.seed));
  std::uniform_int_distribution<size_t> pick(0, vocab.size() - 1);
  // Fresh prompts for every batch, so the prefix cache never skips a prompt.
  const auto batch = [&] {
    std::vector<std::vector<int32_t>> prompts(args.batch_size, std::vector<int32_t>(args.input_len));
    for (auto& p : prompts) {
      for (int32_t& id : p) id = vocab[pick(rng)];
    }
    return prompts;
  };
  SamplingParams params;  // temperature 1, top_p 1, as vLLM's benchmark samples
  params.n = args.n;
  params.max_tokens = args.output_len;
  params.ignore_eos = true;
  params.output_kind = OutputKind::kFinalOnly;
  for (int i = 0; i < args.num_iters_warmup; ++i) {
    PAGODA_RETURN_IF_ERROR(RunBatch(*engine, batch(), params, -1 - i).status());
  }
  std::vector<Iteration> runs;
  for (int i = 0; i < args.num_iters; ++i) {
    PAGODA_ASSIGN_OR_RETURN(Iteration it, RunBatch(*engine, batch(), params, i));
    runs.push_back(it);
  }

  std::vector<double> latencies;
  double prompt_seconds = 0, decode_seconds = 0;
  for (const Iteration& it : runs) {
    latencies.push_back(it.latency);
    prompt_seconds += it.prompt;
    decode_seconds += it.decode;
  }
  std::vector<double> sorted = latencies;
  std::sort(sorted.begin(), sorted.end());
  double sum = 0;
  for (double l : latencies) sum += l;
  const double avg = sum / static_cast<double>(latencies.size());
  const double iters = static_cast<double>(runs.size());
  const double prompt_tps = iters * args.batch_size * args.input_len / prompt_seconds;
  // Every sequence's tokens after its first, n per request.
  const double decode_tps = iters * args.batch_size * args.n * (args.output_len - 1) / decode_seconds;

  std::printf("Avg latency: %.4f seconds\n", avg);
  nlohmann::json percentiles = nlohmann::json::object();
  for (int p : {10, 25, 50, 75, 90, 99}) {
    std::printf("%d%% percentile latency: %.4f seconds\n", p, Percentile(sorted, p));
    percentiles[std::to_string(p)] = Percentile(sorted, p);
  }
  std::printf("Prompt: %.1f tokens/s; decode: %.1f tokens/s (batch %d, %d prompt + %d output tokens)\n", prompt_tps,
              decode_tps, args.batch_size, args.input_len, args.output_len);
  if (args.output_json.empty()) return Status::Ok();

  const EngineConfig& resolved = engine->config();
  const nlohmann::json result = {
      {"avg_latency", avg},
      {"latencies", latencies},
      {"percentiles", percentiles},
      {"prompt_tokens_per_s", prompt_tps},
      {"decode_tokens_per_s", decode_tps},
      {"config",
       {{"model", resolved.model},
        {"input_len", args.input_len},
        {"output_len", args.output_len},
        {"batch_size", args.batch_size},
        {"n", args.n},
        {"enable_prefix_caching", resolved.enable_prefix_caching},
        {"num_iters_warmup", args.num_iters_warmup},
        {"num_iters", args.num_iters},
        {"max_num_batched_tokens", resolved.max_num_batched_tokens},
        {"step_latency_target_ms", resolved.step_latency_target * 1e3},
        {"threads", resolved.threads},
        {"seed", args.seed}}},
  };
  return WriteJsonFile(args.output_json, result);
}

}  // namespace

void RegisterBenchLatency(CLI::App& bench, Command& command) {
  auto args = std::make_shared<LatencyArgs>();
  auto* sub = bench.add_subcommand("latency", "Latency of one batch, as vllm bench latency, with prompt and decode tokens/s");
  sub->add_option("--model", args->model, "GGUF model file or Hugging Face directory (default: the default model)");
  sub->add_option("--input-len", args->input_len, "Prompt tokens per request")->capture_default_str();
  sub->add_option("--output-len", args->output_len, "Tokens to generate per request")->capture_default_str();
  sub->add_option("--batch-size", args->batch_size, "Requests submitted together")->capture_default_str();
  sub->add_option("--n", args->n, "Sequences per request")->capture_default_str();
  sub->add_option("--num-iters-warmup", args->num_iters_warmup, "Batches run before measuring")->capture_default_str();
  sub->add_option("--num-iters", args->num_iters, "Batches measured")->capture_default_str();
  AddEngineOptions(*sub, args->engine);
  sub->add_option("--seed", args->seed, "Seeds the prompts and the sampling")->capture_default_str();
  sub->add_option("--output-json", args->output_json,
                  "Write avg_latency, latencies, percentiles, prompt_tokens_per_s, decode_tokens_per_s and the "
                  "configuration here");
  sub->callback([&command, args] { command = [args] { return Latency(*args); }; });
}

}  // namespace pagoda::apps
