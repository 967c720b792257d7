// `pagoda generate`: one prompt, streamed to stdout as it is produced, with
// prompt and generation speed on stderr.
#include <fmt/format.h>

#include <chrono>
#include <cstdio>

#include "pagoda/apps/commands.h"
#include "pagoda/apps/kv_cache_size.h"
#include "pagoda/apps/model_files.h"
#include "pagoda/kv_blocks/block_pool.h"
#include "pagoda/runner/model_runner.h"
#include "pagoda/sampler/sampler.h"
#include "pagoda/threading/thread_pool.h"
#include "pagoda/tokenizer/incremental_detokenizer.h"

namespace pagoda::apps {
namespace {

struct GenerateArgs {
  std::string model;
  std::string prompt;
  int max_tokens = 128;
  float temperature = 1.0f;
  float top_p = 1.0f;
  int top_k = -1;
  std::optional<uint64_t> seed;
  int threads = 0;
  int prefill_chunk = 512;
  bool ignore_eos = false;
  std::string kv_cache_dtype = "f16";
};

using Clock = std::chrono::steady_clock;

double Seconds(Clock::time_point a, Clock::time_point b) { return std::chrono::duration<double>(b - a).count(); }

Status Generate(const GenerateArgs& args) {
  SamplingParams sampling;
  sampling.temperature = args.temperature;
  sampling.top_p = args.top_p;
  sampling.top_k = args.top_k;
  if (args.seed) sampling.seed = static_cast<int64_t>(*args.seed);
  PAGODA_RETURN_IF_ERROR(sampling.Validate());
  sampling.Normalize();
  if (args.max_tokens < 1) return InvalidArgumentError("--max-tokens must be at least 1");
  if (args.prefill_chunk < 1) return InvalidArgumentError("--prefill-chunk must be at least 1");

  PAGODA_ASSIGN_OR_RETURN(LoadedModel m, LoadModelFiles(args.model, /*with_weights=*/true));
  const ModelConfig& config = m.model->config();
  std::vector<int32_t> tokens = m.tokenizer->Encode(args.prompt);
  if (tokens.empty()) return InvalidArgumentError("the prompt is empty");
  const int64_t total = static_cast<int64_t>(tokens.size()) + args.max_tokens;
  if (total > config.max_context) {
    return InvalidArgumentError(fmt::format("prompt ({} tokens) plus --max-tokens ({}) exceeds the model's context of {}",
                                            tokens.size(), args.max_tokens, config.max_context));
  }

  PAGODA_ASSIGN_OR_RETURN(DType kv_dtype, ParseKvCacheDtype(args.kv_cache_dtype));
  const KvCacheShape shape{config.num_layers, config.num_kv_heads, config.head_dim, 16, kv_dtype};
  const int64_t blocks_needed = (total + shape.block_size - 1) / shape.block_size;
  PAGODA_ASSIGN_OR_RETURN(auto arena, KvCacheArena::Create(shape, blocks_needed * shape.BytesPerBlock()));
  BlockPool blocks(static_cast<int32_t>(arena->num_blocks()));
  ThreadPool pool(args.threads);
  ModelRunner runner(*m.model, *arena, pool);
  Sampler sampler(static_cast<int32_t>(config.vocab_size), {});
  const RandomStream random = RandomStream::For(sampling.seed, /*child_index=*/0);
  SampledToken sampled;
  tokenizer::IncrementalDetokenizer detok(*m.tokenizer, /*skip_special_tokens=*/true);

  std::vector<int32_t> table;
  PAGODA_RETURN_IF_ERROR(GrowBlockTable(blocks, table, total, shape.block_size));

  // Prefill in chunks, then decode one token per step.
  const auto t0 = Clock::now();
  const int64_t prompt_len = static_cast<int64_t>(tokens.size());
  std::span<const float> logits;
  for (int64_t done = 0; done < prompt_len;) {
    const int64_t n = std::min<int64_t>(args.prefill_chunk, prompt_len - done);
    const bool last = done + n == prompt_len;
    SequenceChunk chunk{std::span(tokens).subspan(done, n), static_cast<int32_t>(done), table,
                        last ? LogitsMode::kLast : LogitsMode::kNone};
    logits = runner.Execute({&chunk, 1});
    done += n;
  }
  const auto t1 = Clock::now();
  int generated = 0;
  while (true) {
    const SamplingSequence sequence{&sampling, std::span(tokens).first(prompt_len),
                                    std::span(tokens).subspan(prompt_len), {}, random};
    sampler.Sample(logits, {&sequence, 1}, {&sampled, 1});
    const int32_t next = sampled.token_id;
    ++generated;
    if (!args.ignore_eos && m.tokenizer->eos_id() && next == *m.tokenizer->eos_id()) break;
    PAGODA_ASSIGN_OR_RETURN(std::string delta, detok.Push(next));
    std::fwrite(delta.data(), 1, delta.size(), stdout);
    std::fflush(stdout);
    if (generated == args.max_tokens) break;
    const int32_t pos = static_cast<int32_t>(tokens.size());
    tokens.push_back(next);
    SequenceChunk chunk{std::span(tokens).subspan(pos, 1), pos, table, LogitsMode::kLast};
    logits = runner.Execute({&chunk, 1});
  }
  const std::string tail = detok.Finish();
  std::fwrite(tail.data(), 1, tail.size(), stdout);
  std::fputs("\n", stdout);
  const auto t2 = Clock::now();
  ReleaseBlockTable(blocks, table);

  std::fprintf(stderr, "prompt: %lld tokens in %.3f s (%.1f tokens/s); generation: %d tokens in %.3f s (%.1f tokens/s); %d threads\n",
               static_cast<long long>(prompt_len), Seconds(t0, t1), prompt_len / Seconds(t0, t1), generated,
               Seconds(t1, t2), generated / Seconds(t1, t2), pool.num_threads());
  return Status::Ok();
}

}  // namespace

void RegisterGenerate(CLI::App& app, Command& command) {
  auto args = std::make_shared<GenerateArgs>();
  auto* sub = app.add_subcommand("generate", "Generate text from a prompt, streamed to stdout");
  sub->add_option("--model", args->model, "GGUF model file (default: the default model)");
  sub->add_option("--prompt", args->prompt, "Prompt text; special-token strings are recognized")->required();
  sub->add_option("--max-tokens", args->max_tokens, "Tokens to generate at most")->capture_default_str();
  sub->add_option("--temperature", args->temperature, "0 = greedy")->capture_default_str();
  sub->add_option("--top-p", args->top_p, "Nucleus sampling mass")->capture_default_str();
  sub->add_option("--top-k", args->top_k, "Keep the k most likely tokens (-1 = all)")->capture_default_str();
  sub->add_option("--seed", args->seed, "Seed for reproducible sampling");
  sub->add_option("--threads", args->threads, "Compute threads (default: one per physical core)");
  sub->add_option("--prefill-chunk", args->prefill_chunk, "Prompt tokens per forward step")->capture_default_str();
  sub->add_flag("--ignore-eos", args->ignore_eos, "Keep generating after the end-of-sequence token");
  sub->add_option("--kv-cache-dtype", args->kv_cache_dtype, "f16 or f32")->capture_default_str();
  sub->callback([&command, args] { command = [args] { return Generate(*args); }; });
}

}  // namespace pagoda::apps
