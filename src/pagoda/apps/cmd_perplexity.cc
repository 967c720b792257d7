// `pagoda perplexity`: how well the model predicts a text, computed over
// non-overlapping windows the way llama.cpp's perplexity tool does, so a
// quantized model can be judged against llama.cpp's numbers.
#include <fmt/format.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <iterator>

#include "pagoda/apps/commands.h"
#include "pagoda/apps/kv_cache_size.h"
#include "pagoda/apps/model_files.h"
#include "pagoda/kv_blocks/block_pool.h"
#include "pagoda/runner/model_runner.h"
#include "pagoda/runner/perplexity.h"
#include "pagoda/threading/thread_pool.h"

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

Status Perplexity(const PerplexityArgs& args) {
  std::ifstream in(args.file, std::ios::binary);
  if (!in) return NotFoundError(fmt::format("cannot open '{}'", args.file));
  const std::string text((std::istreambuf_iterator<char>(in)), {});
  if (args.max_tokens < 0) return InvalidArgumentError("--max-tokens must not be negative");

  PAGODA_ASSIGN_OR_RETURN(LoadedModel m, LoadModelFiles(args.model, /*with_weights=*/true));
  const ModelConfig& config = m.model->config();
  if (args.ctx < 4 || args.ctx > config.max_context) {
    return InvalidArgumentError(fmt::format("--ctx must be in [4, {}]", config.max_context));
  }
  // Special-token strings in the text are plain text here, as in llama.cpp's tool.
  tokenizer::EncodeOptions encode;
  encode.parse_special = false;
  std::vector<int32_t> tokens = m.tokenizer->Encode(text, encode);
  if (args.max_tokens > 0 && static_cast<int64_t>(tokens.size()) > args.max_tokens) tokens.resize(args.max_tokens);

  PAGODA_ASSIGN_OR_RETURN(DType kv_dtype, ParseKvCacheDtype(args.kv_cache_dtype));
  const KvCacheShape shape{config.num_layers, config.num_kv_heads, config.head_dim, 16, kv_dtype};
  const int64_t blocks_needed = (args.ctx + shape.block_size - 1) / shape.block_size;
  PAGODA_ASSIGN_OR_RETURN(auto arena, KvCacheArena::Create(shape, blocks_needed * shape.BytesPerBlock()));
  BlockPool blocks(static_cast<int32_t>(arena->num_blocks()));
  ThreadPool pool(args.threads);
  ModelRunner runner(*m.model, *arena, pool);

  PerplexityOptions options;
  options.ctx = args.ctx;
  if (m.tokenizer->add_bos()) options.bos_token = m.tokenizer->bos_id();
  options.on_window = [](int64_t window, double running) { std::fprintf(stderr, "[%lld]%.4f ", static_cast<long long>(window + 1), running); };
  std::fprintf(stderr, "perplexity: %zu tokens, %lld windows of %lld\n", tokens.size(),
               static_cast<long long>(tokens.size() / args.ctx), static_cast<long long>(args.ctx));
  const auto start = std::chrono::steady_clock::now();
  PAGODA_ASSIGN_OR_RETURN(PerplexityResult result, ComputePerplexity(runner, blocks, tokens, options));
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
  sub->add_option("--kv-cache-dtype", args->kv_cache_dtype, "f32 or f16")->capture_default_str();
  sub->callback([&command, args] { command = [args] { return Perplexity(*args); }; });
}

}  // namespace pagoda::apps
