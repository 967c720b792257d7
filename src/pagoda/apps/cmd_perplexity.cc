// `pagoda perplexity`: how well the model predicts a text, computed over
// non-overlapping windows the way llama.cpp's perplexity tool does, so a
// quantized model can be judged against llama.cpp's numbers. The windows
// run through the engine as requests for their prompt logprobs.
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iterator>

#include "pagoda/apps/commands.h"
#include "pagoda/engine/engine.h"
#include "pagoda/engine/kv_cache_sizing.h"
#include "pagoda/engine/model_files.h"
#include "pagoda/engine/perplexity.h"

namespace pagoda::apps {
namespace {

struct PerplexityArgs {
  std::string model;
  std::string file;
  int64_t ctx = 512;
  int64_t max_tokens = 0;  // 0 = the whole text
  int threads = 0;
  std::string kv_cache_dtype = "f32";
};

// An engine whose steps hold as many whole windows as the default token
// budget allows, with a KV cache for just those windows.
StatusOr<EngineConfig> WindowEngine(const PerplexityArgs& args, const ModelConfig& model) {
  EngineConfig config;
  PAGODA_ASSIGN_OR_RETURN(config.kv_cache_dtype, ParseKvCacheDtype(args.kv_cache_dtype, "--kv-cache-dtype"));
  const int64_t windows = std::max<int64_t>(1, config.max_num_batched_tokens / args.ctx);
  config.step_latency_target = 0;  // whole windows every step
  config.max_model_len = args.ctx + 1;  // a window is a prompt, and a prompt must leave room for a token
  config.kv_cache_memory =
      KvCacheBytesFor(model, KvCacheSizingDtype(config.kv_cache_dtype), config.block_size, args.ctx + 1, windows);
  config.max_num_seqs = static_cast<int32_t>(windows);
  config.threads = args.threads;
  return config;
}

Status Perplexity(const PerplexityArgs& args) {
  std::ifstream in(args.file, std::ios::binary);
  if (!in) return NotFoundError(fmt::format("cannot open '{}'", args.file));
  const std::string text((std::istreambuf_iterator<char>(in)), {});
  if (args.max_tokens < 0) return InvalidArgumentError("--max-tokens must not be negative");

  LogToStderr();
  PAGODA_ASSIGN_OR_RETURN(LoadedModel loaded, LoadModelFiles(args.model, /*with_weights=*/true));
  const ModelConfig model = loaded.model->config();
  if (args.ctx < 4 || args.ctx >= model.max_context) {
    return InvalidArgumentError(fmt::format("--ctx must be in [4, {})", model.max_context));
  }
  // Special-token strings in the text are plain text here, as in llama.cpp's tool.
  tokenizer::EncodeOptions encode;
  encode.parse_special = false;
  std::vector<int32_t> tokens = loaded.tokenizer->Encode(text, encode);
  if (args.max_tokens > 0 && static_cast<int64_t>(tokens.size()) > args.max_tokens) tokens.resize(args.max_tokens);

  PerplexityOptions options;
  options.ctx = args.ctx;
  if (loaded.tokenizer->add_bos()) options.bos_token = loaded.tokenizer->bos_id();
  options.on_window = [](int64_t window, double running) {
    std::fprintf(stderr, "[%lld]%.4f ", static_cast<long long>(window + 1), running);
  };
  PAGODA_ASSIGN_OR_RETURN(EngineConfig config, WindowEngine(args, model));
  PAGODA_ASSIGN_OR_RETURN(std::unique_ptr<Engine> engine, Engine::Create(config, std::move(loaded)));
  std::fprintf(stderr, "perplexity: %zu tokens, %lld windows of %lld\n", tokens.size(),
               static_cast<long long>(tokens.size() / args.ctx), static_cast<long long>(args.ctx));
  const auto start = std::chrono::steady_clock::now();
  PAGODA_ASSIGN_OR_RETURN(PerplexityResult result, ComputePerplexity(*engine, tokens, options));
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::fprintf(stderr, "\n%.1f tokens/s\n", result.window_nll.size() * args.ctx / seconds);
  std::printf("perplexity: %.4f over %lld scored tokens in %zu windows of %lld\n", result.perplexity,
              static_cast<long long>(result.scored_tokens), result.window_nll.size(), static_cast<long long>(args.ctx));
  return Status::Ok();
}

}  // namespace

void RegisterPerplexity(CLI::App& app, Command& command) {
  auto args = std::make_shared<PerplexityArgs>();
  auto* sub = app.add_subcommand("perplexity", "Perplexity of a text over non-overlapping windows (llama.cpp's method)");
  sub->add_option("--model", args->model, "GGUF model file (default: the default model)");
  sub->add_option("--file", args->file, "Text file to score")->required();
  sub->add_option("--ctx", args->ctx, "Window length in tokens")->capture_default_str();
  sub->add_option("--max-tokens", args->max_tokens, "Use only the first N tokens of the text (0 = all)");
  sub->add_option("--threads", args->threads, "Compute threads (default: one per physical core)");
  sub->add_option("--kv-cache-dtype", args->kv_cache_dtype, "float32, float16, bfloat16 or auto")->capture_default_str();
  sub->callback([&command, args] { command = [args] { return Perplexity(*args); }; });
}

}  // namespace pagoda::apps
