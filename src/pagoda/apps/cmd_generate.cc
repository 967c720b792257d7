// `pagoda generate`: one prompt, streamed to stdout as it is produced, with
// prompt and generation speed on stderr. It runs through the engine like
// every other request, in an engine sized for this one request.
#include <fmt/format.h>

#include <cstdio>

#include "pagoda/apps/commands.h"
#include "pagoda/engine/engine.h"
#include "pagoda/engine/kv_cache_sizing.h"
#include "pagoda/engine/model_files.h"
#include "pagoda/threading/thread_pool.h"

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
  std::string kv_cache_dtype = "auto";
  std::string dtype = "auto";
  std::string quantization;
  std::string load_format = "auto";
};

// An engine for one sequence of up to `total` tokens: max_model_len and
// the KV cache just fit it, and each step computes up to --prefill-chunk tokens.
StatusOr<EngineConfig> OneRequestEngine(const GenerateArgs& args, const ModelConfig& model, int64_t total) {
  EngineConfig config;
  PAGODA_ASSIGN_OR_RETURN(config.kv_cache_dtype, ParseKvCacheDtype(args.kv_cache_dtype, "--kv-cache-dtype"));
  config.kv_cache_memory =
      KvCacheBytesFor(model, KvCacheSizingDtype(config.kv_cache_dtype), config.block_size, total);
  config.max_model_len = total;
  config.max_num_seqs = 1;
  config.max_num_batched_tokens = args.prefill_chunk;
  config.step_latency_target = 0;  // --prefill-chunk is the chunk, every step
  config.threads = args.threads;
  return config;
}

ModelLoadOptions LoadOptions(const GenerateArgs& args) {
  ModelLoadOptions options;
  options.dtype = args.dtype;
  options.quantization = args.quantization;
  options.load_format = args.load_format;
  return options;
}

struct Streamed {
  RequestOutput final_output;
  int64_t num_tokens = 0;
};

// Writes the completion's text to stdout as it arrives.
StatusOr<Streamed> StreamToStdout(OutputStream& stream) {
  Streamed streamed;
  std::optional<RequestOutput> last;
  while (std::optional<RequestOutput> out = stream.Next()) {
    for (const CompletionOutput& c : out->outputs) {
      std::fwrite(c.text.data(), 1, c.text.size(), stdout);
      streamed.num_tokens += static_cast<int64_t>(c.token_ids.size());
    }
    std::fflush(stdout);
    last = std::move(out);
  }
  if (!last || !last->finished) return InternalError("the output stream ended before the request finished");
  std::fputs("\n", stdout);
  streamed.final_output = std::move(*last);
  return streamed;
}

Status Generate(const GenerateArgs& args) {
  SamplingParams sampling;
  sampling.temperature = args.temperature;
  sampling.top_p = args.top_p;
  sampling.top_k = args.top_k;
  if (args.seed) sampling.seed = static_cast<int64_t>(*args.seed);
  sampling.max_tokens = args.max_tokens;
  sampling.ignore_eos = args.ignore_eos;
  sampling.output_kind = OutputKind::kDelta;
  PAGODA_RETURN_IF_ERROR(sampling.Validate());
  if (args.max_tokens < 1) return InvalidArgumentError("--max-tokens must be at least 1");
  if (args.prefill_chunk < 1) return InvalidArgumentError("--prefill-chunk must be at least 1");

  LogToStderr();
  PAGODA_ASSIGN_OR_RETURN(LoadedModel loaded, LoadModelFiles(args.model, /*with_weights=*/true, LoadOptions(args)));
  const ModelConfig model = loaded.model->config();
  std::vector<int32_t> tokens = loaded.tokenizer->Encode(args.prompt);
  if (tokens.empty()) return InvalidArgumentError("the prompt is empty");
  const int64_t total = static_cast<int64_t>(tokens.size()) + args.max_tokens;
  if (total > model.max_context) {
    return InvalidArgumentError(fmt::format("prompt ({} tokens) plus --max-tokens ({}) exceeds the model's context of {}",
                                            tokens.size(), args.max_tokens, model.max_context));
  }
  PAGODA_ASSIGN_OR_RETURN(EngineConfig config, OneRequestEngine(args, model, total));
  PAGODA_ASSIGN_OR_RETURN(std::unique_ptr<Engine> engine, Engine::Create(config, std::move(loaded)));
  PAGODA_ASSIGN_OR_RETURN(std::shared_ptr<OutputStream> stream,
                          engine->AddRequest("generate", std::move(tokens), sampling));
  PAGODA_ASSIGN_OR_RETURN(Streamed out, StreamToStdout(*stream));

  // The prompt's time runs from its first step to its first token; the
  // generation's from the first token to the last.
  const RequestMetrics& m = out.final_output.metrics;
  const double prompt_s = m.first_token_time.value_or(0) - m.first_scheduled_time.value_or(0);
  const double generation_s = m.last_token_time.value_or(0) - m.first_token_time.value_or(0);
  const int64_t prompt_len = static_cast<int64_t>(out.final_output.prompt_token_ids.size());
  const int64_t generated = out.num_tokens;
  std::fprintf(stderr,
               "prompt: %lld tokens in %.3f s (%.1f tokens/s); generation: %lld tokens, the %lld after the first in "
               "%.3f s (%.1f tokens/s); %d threads\n",
               static_cast<long long>(prompt_len), prompt_s, prompt_len / prompt_s, static_cast<long long>(generated),
               static_cast<long long>(generated - 1), generation_s, (generated - 1) / generation_s,
               args.threads > 0 ? args.threads : ThreadPool::PhysicalCores());
  return Status::Ok();
}

}  // namespace

void RegisterGenerate(CLI::App& app, Command& command) {
  auto args = std::make_shared<GenerateArgs>();
  auto* sub = app.add_subcommand("generate", "Generate text from a prompt, streamed to stdout");
  sub->add_option("--model", args->model, "GGUF model file or Hugging Face directory (default: the default model)");
  sub->add_option("--dtype", args->dtype, "A Hugging Face checkpoint's weights: auto, bfloat16, float16 or float32")
      ->capture_default_str();
  sub->add_option("-q,--quantization", args->quantization,
                  "As serve's: the checkpoint's own method (default), or fp8 to quantize a float Hugging Face "
                  "checkpoint at load");
  sub->add_option("--load-format", args->load_format,
                  "As serve's: auto, safetensors, gguf, or dummy (random weights from a config.json)")
      ->capture_default_str();
  sub->add_option("--prompt", args->prompt, "Prompt text; special-token strings are recognized")->required();
  sub->add_option("--max-tokens", args->max_tokens, "Tokens to generate at most")->capture_default_str();
  sub->add_option("--temperature", args->temperature, "0 = greedy")->capture_default_str();
  sub->add_option("--top-p", args->top_p, "Nucleus sampling mass")->capture_default_str();
  sub->add_option("--top-k", args->top_k, "Keep the k most likely tokens (-1 = all)")->capture_default_str();
  sub->add_option("--seed", args->seed, "Seed for reproducible sampling");
  sub->add_option("--threads", args->threads, "Compute threads (default: one per physical core)");
  sub->add_option("--prefill-chunk", args->prefill_chunk, "Prompt tokens per forward step")->capture_default_str();
  sub->add_flag("--ignore-eos", args->ignore_eos, "Keep generating after the end-of-sequence token");
  sub->add_option("--kv-cache-dtype", args->kv_cache_dtype, "auto, bfloat16, float16 or float32")->capture_default_str();
  sub->callback([&command, args] { command = [args] { return Generate(*args); }; });
}

}  // namespace pagoda::apps
