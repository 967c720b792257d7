#include "pagoda/engine/engine_core.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <future>
#include <thread>

#include "pagoda/base/check.h"
#include "pagoda/beam_search/beam_round.h"
#include "pagoda/engine/kv_cache_sizing.h"
#include "pagoda/engine/memory_utilization.h"
#include "pagoda/kernels/cpu/kernel_set.h"
#include "pagoda/kernels/cpu/kv_pairs_layout.h"

namespace pagoda {
namespace {

Status ValidateConfig(const EngineConfig& c) {
  if (c.max_num_seqs < 1) return InvalidArgumentError("max_num_seqs must be at least 1");
  if (c.max_num_batched_tokens < 1) return InvalidArgumentError("max_num_batched_tokens must be at least 1");
  if (!(c.step_latency_target >= 0) || !std::isfinite(c.step_latency_target)) {
    return InvalidArgumentError(
        fmt::format("step_latency_target {} must be a number of seconds, at least 0 (0: a fixed budget)",
                    c.step_latency_target));
  }
  if (c.block_size < 1) return InvalidArgumentError("block_size must be at least 1");
  if (c.max_model_len && *c.max_model_len < 2) return InvalidArgumentError("max_model_len must be at least 2");
  if (c.long_prefill_token_threshold < 0) {
    return InvalidArgumentError("long_prefill_token_threshold must be at least 0 (0: no cap)");
  }
  if (c.max_num_partial_prefills < 1) return InvalidArgumentError("max_num_partial_prefills must be at least 1");
  if (c.max_long_partial_prefills < 1 || c.max_long_partial_prefills > c.max_num_partial_prefills) {
    return InvalidArgumentError(fmt::format("max_long_partial_prefills ({}) must be at least 1 and at most "
                                            "max_num_partial_prefills ({})",
                                            c.max_long_partial_prefills, c.max_num_partial_prefills));
  }
  if (c.max_num_waiting_requests < 0) {
    return InvalidArgumentError("max_num_waiting_requests must be at least 0 (0: unbounded)");
  }
  if (c.gpu_memory_utilization && (!(*c.gpu_memory_utilization > 0.0) || *c.gpu_memory_utilization > 1.0)) {
    return InvalidArgumentError(fmt::format("gpu_memory_utilization {} must be in (0, 1]", *c.gpu_memory_utilization));
  }
  return Status::Ok();
}

// --generation-config: the model's file (auto), none of its sampling values
// (vllm; its EOS ids still count, as in vLLM), or another directory's file.
StatusOr<hf::GenerationConfig> ResolveGenerationConfig(const std::string& mode, hf::GenerationConfig model_config) {
  if (mode == "auto") return model_config;
  if (mode == "vllm") {
    hf::GenerationConfig eos_only;
    eos_only.eos_token_ids = std::move(model_config.eos_token_ids);
    return eos_only;
  }
  if (!std::filesystem::is_regular_file(std::filesystem::path(mode) / "generation_config.json")) {
    return InvalidArgumentError("--generation-config '" + mode +
                                "' is neither auto, vllm nor a directory holding generation_config.json");
  }
  return hf::ReadGenerationConfig(mode);
}

GenerationDefaults DefaultsOf(const hf::GenerationConfig& g) {
  GenerationDefaults d;
  const auto as_float = [](const std::optional<double>& v) {
    return v ? std::optional<float>(static_cast<float>(*v)) : std::nullopt;
  };
  d.temperature = as_float(g.temperature);
  d.top_p = as_float(g.top_p);
  d.top_k = g.top_k;
  d.min_p = as_float(g.min_p);
  d.repetition_penalty = as_float(g.repetition_penalty);
  d.max_tokens = g.max_new_tokens;
  return d;
}

// generation_config.json's EOS ids other than the tokenizer's.
StatusOr<std::vector<int32_t>> ExtraEosIds(const hf::GenerationConfig& g, const tokenizer::Tokenizer& tokenizer,
                                           int64_t vocab_size) {
  std::vector<int32_t> extra;
  for (int32_t id : g.eos_token_ids) {
    if (id >= vocab_size) {
      return InvalidArgumentError(fmt::format("generation_config.json: eos_token_id {} is outside the vocabulary", id));
    }
    if (id != tokenizer.eos_id() && std::find(extra.begin(), extra.end(), id) == extra.end()) extra.push_back(id);
  }
  return extra;
}

// vLLM's warning, so that an unexpected default is traced to its source.
void LogGenerationDefaults(const GenerationDefaults& defaults) {
  if (defaults.empty()) return;
  spdlog::warn("Default sampling parameters have been overridden by the model's generation config ({}). "
               "If this is not intended, start with --generation-config vllm.",
               defaults.Describe());
}

// The KV cache's bytes: --kv-cache-memory, or --gpu-memory-utilization's
// share of the available memory less the weights.
StatusOr<int64_t> KvCacheMemory(const EngineConfig& config, uint64_t weight_bytes) {
  if (!config.gpu_memory_utilization) return config.kv_cache_memory;
  PAGODA_ASSIGN_OR_RETURN(const int64_t available, AvailableMemoryBytes());
  PAGODA_ASSIGN_OR_RETURN(const int64_t bytes, KvCacheBytesFromUtilization(*config.gpu_memory_utilization, available,
                                                                           static_cast<int64_t>(weight_bytes)));
  spdlog::info("--gpu-memory-utilization {}: {} MiB of KV cache ({} MiB available, {} MiB of weights)",
               *config.gpu_memory_utilization, bytes >> 20, available >> 20, weight_bytes >> 20);
  return bytes;
}

ModelLoadOptions ModelLoadOptionsOf(const EngineConfig& c) {
  return {.dtype = c.dtype,
          .tokenizer = c.tokenizer,
          .quantization = c.quantization,
          .revision = c.revision,
          .load_format = c.load_format};
}

// vLLM's default: with concurrent partial prefills and no threshold, more
// than 4% of max_model_len is "long". (vLLM also refuses a threshold over
// max_model_len; Pagoda's default would then refuse a small max_model_len,
// and such a threshold simply never applies.)
void ResolvePrefillLimits(EngineConfig& c, int64_t max_model_len) {
  if (c.max_num_partial_prefills > 1 && c.long_prefill_token_threshold == 0) {
    c.long_prefill_token_threshold = static_cast<int32_t>(static_cast<double>(max_model_len) * 0.04);
  }
}

std::string DescribeStepBudget(const EngineConfig& c) {
  if (c.step_latency_target == 0) return fmt::format("{} tokens", c.max_num_batched_tokens);
  return fmt::format("sized from measured step times for {:.0f} ms steps, at most {} tokens",
                     c.step_latency_target * 1e3, c.max_num_batched_tokens);
}

// vLLM's start-up check (check_enough_kv_cache_memory), naming Pagoda's
// flag for the cache size: a cache too small for one request of
// max_model_len tokens would refuse such requests, or never finish them. A
// hybrid model's windowed groups need only their window and a chunk.
Status CheckKvCacheHoldsOneRequest(const KvCacheShape& shape, const KvCacheLayout& layout, int64_t kv_cache_memory,
                                   int64_t max_model_len, int64_t max_chunk) {
  const int64_t bytes_per_block = shape.BytesPerBlock();
  const int32_t bs = static_cast<int32_t>(shape.block_size);
  auto bytes_for = [&](int64_t len) { return MaxBlocksPerSequence(layout.groups, bs, len, max_chunk) * bytes_per_block; };
  const int64_t needed = bytes_for(max_model_len);
  if (needed <= kv_cache_memory) return Status::Ok();
  // The longest request that fits: bytes_for grows with the length.
  int64_t lo = 0, hi = max_model_len;
  while (lo < hi) {
    const int64_t mid = (lo + hi + 1) / 2;
    if (bytes_for(mid) <= kv_cache_memory) {
      lo = mid;
    } else {
      hi = mid - 1;
    }
  }
  const int64_t estimated_max_len = lo / bs * bs;
  const std::string estimate =
      estimated_max_len > 0
          ? fmt::format(" Based on the available memory, the estimated maximum model length is {}.", estimated_max_len)
          : "";
  constexpr double kGiB = 1 << 30;
  return InvalidArgumentError(fmt::format(
      "To serve at least one request with the models's max seq len ({}), ({:.2f} GiB KV cache is needed, which is "
      "larger than the available KV cache memory ({:.2f} GiB).{} Try increasing `--kv-cache-memory` or decreasing "
      "`max_model_len` when initializing the engine.",
      max_model_len, static_cast<double>(needed) / kGiB, static_cast<double>(kv_cache_memory) / kGiB, estimate));
}

// The best set the CPU supports, or the one the config names.
StatusOr<const kernels::cpu::KernelSet*> ChooseKernelSet(const EngineConfig& config) {
  if (config.kernel_set.empty()) return &kernels::cpu::BestKernelSet();
  const kernels::cpu::KernelSet* set = kernels::cpu::FindSupportedKernelSet(config.kernel_set);
  if (set == nullptr) {
    return InvalidArgumentError(fmt::format("kernel set {} is not one this CPU supports", config.kernel_set));
  }
  return set;
}

// The KV cache's element type (EngineConfig::kv_cache_dtype): auto takes
// BF16 where the kernel set has its own attention for it and the model's
// shape fits its order, else F16. BF16 asked for elsewhere still runs, on
// the reference's attention rows; a shape the order cannot hold is refused.
StatusOr<DType> ResolveKvCacheDtype(const EngineConfig& config, const kernels::cpu::KernelSet& set,
                                    const ModelConfig& mc) {
  const bool pairs_fit = kernels::cpu::KvPairsShapeOk(mc.head_dim, config.block_size);
  if (!config.kv_cache_dtype) return set.own_bf16_kv_attention && pairs_fit ? DType::kBF16 : DType::kF16;
  if (*config.kv_cache_dtype != DType::kBF16) return *config.kv_cache_dtype;
  if (!pairs_fit) {
    return InvalidArgumentError(fmt::format(
        "kv_cache_dtype bfloat16 needs a head size that is a multiple of 32 and a block size that is a multiple "
        "of 16; this model's head size is {} and the block size {} (use auto, float16 or float32)",
        mc.head_dim, config.block_size));
  }
  if (!set.own_bf16_kv_attention) {
    spdlog::warn("kv_cache_dtype bfloat16: the {} kernels read a BF16 cache through the reference attention, "
                 "which is slow; auto or float16 is faster on this CPU",
                 set.name);
  }
  return DType::kBF16;
}

// vLLM's cache_dtype label: the setting as given ("auto" when unset).
std::string KvCacheDtypeLabel(const std::optional<DType>& dtype) {
  if (!dtype) return "auto";
  switch (*dtype) {
    case DType::kF32: return "float32";
    case DType::kBF16: return "bfloat16";
    default: return "float16";
  }
}

// Repacks the weights for the context's kernel set (Model::PackWeights),
// logging what that took: it is part of start-up.
void PackWeights(Model& model, kernels::ComputeContext& ctx) {
  const auto start = std::chrono::steady_clock::now();
  const int64_t bytes = model.PackWeights(ctx);
  if (bytes == 0) return;
  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  spdlog::info("weights repacked for the {} kernels: {} MiB in {:.0f} ms", ctx.kernels().name, bytes >> 20, ms);
}

}  // namespace

double EngineCore::Now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

StatusOr<std::unique_ptr<EngineCore>> EngineCore::Create(const EngineConfig& config) {
  PAGODA_RETURN_IF_ERROR(ValidateConfig(config));
  PAGODA_ASSIGN_OR_RETURN(LoadedModel loaded, LoadModelFiles(config.model, /*with_weights=*/true, ModelLoadOptionsOf(config)));
  return Create(config, std::move(loaded));
}

StatusOr<std::unique_ptr<EngineCore>> EngineCore::Create(const EngineConfig& config, LoadedModel loaded) {
  PAGODA_RETURN_IF_ERROR(ValidateConfig(config));
  if (loaded.model == nullptr) return InvalidArgumentError("the engine needs the model's weights loaded");
  auto core = std::unique_ptr<EngineCore>(new EngineCore());
  core->config_ = config;
  core->config_.model = loaded.path;
  core->file_ = std::move(loaded.file);
  const std::string loaded_description = std::move(loaded.description);
  core->tokenizer_ = std::move(loaded.tokenizer);
  core->chat_template_ = std::move(loaded.chat_template);
  PAGODA_ASSIGN_OR_RETURN(const hf::GenerationConfig generation,
                          ResolveGenerationConfig(config.generation_config, std::move(loaded.generation_config)));
  core->generation_defaults_ = DefaultsOf(generation);
  LogGenerationDefaults(core->generation_defaults_);
  core->model_ = std::move(loaded.model);
  const ModelConfig& mc = core->model_->config();
  const int64_t max_model_len = config.max_model_len.value_or(mc.max_context);
  if (max_model_len > mc.max_context) {
    return InvalidArgumentError(
        fmt::format("max_model_len {} exceeds the model's context of {} tokens", max_model_len, mc.max_context));
  }
  core->config_.max_model_len = max_model_len;
  ResolvePrefillLimits(core->config_, max_model_len);

  uint64_t weight_bytes = 0;
  for (const gguf::TensorInfo& t : core->file_->tensors()) weight_bytes += t.nbytes;
  PAGODA_ASSIGN_OR_RETURN(core->config_.kv_cache_memory, KvCacheMemory(config, weight_bytes));
  const int64_t kv_cache_memory = core->config_.kv_cache_memory;
  KvCacheLayout layout = PlanKvCacheLayout(mc.layer_sliding_window);
  PAGODA_ASSIGN_OR_RETURN(const kernels::cpu::KernelSet* kernel_set, ChooseKernelSet(config));
  PAGODA_ASSIGN_OR_RETURN(const DType kv_cache_dtype, ResolveKvCacheDtype(config, *kernel_set, mc));
  core->config_.kv_cache_dtype = kv_cache_dtype;
  const KvCacheShape shape{layout.num_slots, mc.num_kv_heads, mc.head_dim, config.block_size, kv_cache_dtype};
  PAGODA_RETURN_IF_ERROR(CheckKvCacheHoldsOneRequest(shape, layout, kv_cache_memory, max_model_len,
                                                     config.max_num_batched_tokens));
  const std::string layout_description = DescribeKvCacheLayout(layout);
  std::vector<KvCacheGroupSpec> groups = layout.groups;
  PAGODA_ASSIGN_OR_RETURN(core->arena_, KvCacheArena::Create(shape, std::move(layout), kv_cache_memory));
  const int64_t num_blocks = core->arena_->num_blocks();
  if (num_blocks > INT32_MAX) return InvalidArgumentError("kv_cache_memory gives more than 2^31 blocks");
  core->pool_ = std::make_unique<ThreadPool>(config.threads);
  core->overlap_mask_walks_ = core->pool_->num_threads() < static_cast<int>(std::thread::hardware_concurrency());
  core->compute_ = std::make_unique<kernels::ComputeContext>(*kernel_set, *core->pool_);
  PackWeights(*core->model_, *core->compute_);
  core->runner_ = std::make_unique<ModelRunner>(*core->model_, *core->arena_, *core->compute_);
  core->runner_->Reserve(config.max_num_batched_tokens, config.max_num_seqs);
  PAGODA_ASSIGN_OR_RETURN(core->extra_eos_ids_, ExtraEosIds(generation, *core->tokenizer_, mc.vocab_size));
  std::vector<int32_t> eos_ids = core->extra_eos_ids_;
  if (core->tokenizer_->eos_id()) eos_ids.insert(eos_ids.begin(), *core->tokenizer_->eos_id());
  for (int i = 0; i < core->pool_->num_threads(); ++i) {
    core->samplers_.push_back(
        std::make_unique<Sampler>(static_cast<int32_t>(mc.vocab_size), eos_ids, *core->compute_->kernels().rows));
  }
  core->structured_outputs_ =
      std::make_unique<StructuredOutputCompiler>(*core->tokenizer_, static_cast<int32_t>(mc.vocab_size));

  SchedulerConfig sc;
  sc.max_num_batched_tokens = config.max_num_batched_tokens;
  sc.step_latency_target = config.step_latency_target;
  sc.max_num_seqs = config.max_num_seqs;
  sc.max_model_len = max_model_len;
  sc.long_prefill_token_threshold = core->config_.long_prefill_token_threshold;
  sc.max_num_partial_prefills = config.max_num_partial_prefills;
  sc.max_long_partial_prefills = config.max_long_partial_prefills;
  sc.policy = config.scheduling_policy;
  sc.eos_token_id = core->tokenizer_->eos_id();
  sc.kv = KvCacheConfig{static_cast<int32_t>(num_blocks), config.block_size, config.enable_prefix_caching,
                        std::move(groups)};
  sc.clock = &EngineCore::Now;
  core->scheduler_ = std::make_unique<Scheduler>(std::move(sc));

  core->metrics_ = std::make_unique<metrics::EngineMetrics>(metrics::EngineMetricsConfig{
      .model_name = config.served_model_name.empty() ? core->config_.model : config.served_model_name,
      .max_model_len = max_model_len,
      .engine_index = 0});
  core->metrics_->SetCacheConfigInfo({{"block_size", std::to_string(config.block_size)},
                                      {"cache_dtype", KvCacheDtypeLabel(config.kv_cache_dtype)},
                                      {"enable_prefix_caching", config.enable_prefix_caching ? "True" : "False"},
                                      {"num_gpu_blocks", std::to_string(num_blocks)},
                                      {"num_cpu_blocks", "None"},
                                      {"kv_cache_memory_bytes", std::to_string(kv_cache_memory)}});

  const int64_t kv_bytes_per_token = KvCacheBytesPerToken(mc, kv_cache_dtype);
  spdlog::info("model: {}; {} architecture, {} weight bytes ({}), {} KV cache bytes per token", loaded_description,
               mc.architecture, weight_bytes, gguf::DescribeTypeMix(*core->file_), kv_bytes_per_token);
  spdlog::info("kernels: {} ({}), {} threads", core->compute_->kernels().name, core->compute_->kernels().summary,
               core->pool_->num_threads());
  spdlog::info("step token budget: {}", DescribeStepBudget(config));
  const int64_t num_tokens = num_blocks * config.block_size;
  const int64_t blocks_per_request = core->scheduler_->kv_cache().MaxBlocksPerSequence(
      max_model_len, config.max_num_batched_tokens);
  spdlog::info("KV cache: {} blocks of {} tokens = {} tokens ({} {} bytes per block, {} MiB), {}; "
               "maximum concurrency for {} tokens per request: {:.2f}x",
               num_blocks, config.block_size, num_tokens, shape.BytesPerBlock(), DTypeName(shape.dtype),
               num_blocks * shape.BytesPerBlock() >> 20, layout_description, max_model_len,
               static_cast<double>(num_blocks) / static_cast<double>(blocks_per_request));
  return core;
}

std::vector<std::vector<int32_t>> EngineCore::TokenizeBadWords(const std::vector<std::string>& words) const {
  // vLLM's: each word as written (leading spaces stripped) and with one
  // leading space, the latter only when it tokenizes differently at its
  // first token but into as many tokens.
  const tokenizer::EncodeOptions plain{.add_special = false, .parse_special = true};
  std::vector<std::vector<int32_t>> out;
  for (const std::string& word : words) {
    const std::string stripped = word.substr(std::min(word.find_first_not_of(' '), word.size()));
    std::vector<int32_t> bare = tokenizer_->Encode(stripped, plain);
    std::vector<int32_t> spaced = tokenizer_->Encode(" " + stripped, plain);
    const bool has_bare = !bare.empty();
    if (has_bare) out.push_back(bare);
    if (!spaced.empty() && (!has_bare || (spaced[0] != bare[0] && spaced.size() == bare.size()))) {
      out.push_back(std::move(spaced));
    }
  }
  return out;
}

std::string EngineCore::ReasoningEndToAwait(const Request& request) const {
  if (!config_.reasoning) return "";
  const StatusOr<std::string> prompt = tokenizer_->Decode(request.prompt_token_ids());
  if (!prompt.ok()) return config_.reasoning->end;
  const size_t start = prompt->rfind(config_.reasoning->start);
  const size_t end = prompt->rfind(config_.reasoning->end);
  const bool closed = end != std::string::npos && (start == std::string::npos || end > start);
  return closed ? "" : config_.reasoning->end;
}

StatusOr<PendingRequest> EngineCore::Prepare(std::string request_id, std::optional<std::string> prompt,
                                             std::vector<int32_t> prompt_token_ids, SamplingParams params,
                                             int32_t priority, std::optional<int64_t> seed) const {
  PAGODA_RETURN_IF_ERROR(params.Validate());
  params.Normalize();
  // The model's other EOS ids end the request too (vLLM's
  // update_from_generation_config), unless it ignores EOS.
  if (!params.ignore_eos) {
    for (int32_t id : extra_eos_ids_) {
      if (std::find(params.stop_token_ids.begin(), params.stop_token_ids.end(), id) == params.stop_token_ids.end()) {
        params.stop_token_ids.push_back(id);
      }
    }
  }
  const int32_t vocab = static_cast<int32_t>(model_config().vocab_size);
  PAGODA_RETURN_IF_ERROR(params.ValidateTokenIds(vocab));
  if (prompt) prompt_token_ids = tokenizer_->Encode(*prompt);
  for (int32_t id : prompt_token_ids) {
    if (id < 0 || id >= vocab) {
      return InvalidArgumentError(fmt::format("prompt token id {} is outside the vocabulary [0, {})", id, vocab));
    }
  }
  // Prompt logprobs need every prompt position computed, so such a request
  // reads no cached prefix: a salt of its own keeps others' blocks from
  // matching (vLLM likewise skips the prefix cache for them). A client's
  // salt is spelled apart from those, so no client can name one and have a
  // prompt-logprobs request find its blocks.
  CacheKeys keys;
  if (params.prompt_logprobs) {
    keys.cache_salt = fmt::format("prompt-logprobs-{}", next_prompt_logprobs_salt_++);
  } else if (params.cache_salt) {
    keys.cache_salt = "client:" + *params.cache_salt;
  }
  auto request = std::make_unique<Request>(std::move(request_id), std::move(prompt_token_ids), params, Now(),
                                           priority, std::move(keys));
  PAGODA_RETURN_IF_ERROR(scheduler_->CheckAdmissible(*request));
  request->set_parks(params.use_beam_search);  // beam search decides its sequences' tokens

  std::optional<BeamSearchConfig> beam;
  if (params.use_beam_search) {
    const int64_t room = *config_.max_model_len - request->num_prompt_tokens();
    beam = BeamSearchConfig{.beam_width = params.beam_width,
                            .length_penalty = params.length_penalty,
                            .num_prompt_tokens = request->num_prompt_tokens(),
                            .max_output_tokens = params.max_tokens ? std::min<int64_t>(*params.max_tokens, room) : room,
                            .eos_token_id = tokenizer_->eos_id(),
                            .ignore_eos = params.ignore_eos,
                            .stop_token_ids = params.stop_token_ids};
  }
  std::shared_ptr<structured::CompiledGrammar> grammar;
  if (params.structured_outputs) {
    PAGODA_ASSIGN_OR_RETURN(grammar, structured_outputs_->Compile(*params.structured_outputs));
  }
  std::vector<int32_t> eos_ids;
  if (tokenizer_->eos_id()) eos_ids.push_back(*tokenizer_->eos_id());
  const std::string reasoning_end = grammar ? ReasoningEndToAwait(*request) : "";
  std::vector<RandomStream> random;
  const std::optional<int64_t> stream_seed = params.seed ? params.seed : seed;
  for (int32_t i = 0; i < params.num_sequences(); ++i) random.push_back(RandomStream::For(stream_seed, i));
  auto state = std::make_unique<RequestState>(
      *request, std::move(prompt), TokenizeBadWords(params.bad_words), std::move(random), *tokenizer_,
      std::make_shared<OutputStream>(request->id(), params.output_kind == OutputKind::kCumulative), std::move(beam),
      std::move(grammar), eos_ids, reasoning_end);
  return PendingRequest{std::move(request), std::move(state)};
}

void EngineCore::Add(PendingRequest pending) {
  const Request& request = *pending.request;
  // Prepare checked everything but the id, which Engine keeps unique.
  const Status status = scheduler_->AddRequest(std::move(pending.request));
  PAGODA_CHECK_MSG(status.ok(), status.ToString().c_str());
  // The scheduler's handle indexes the engine's state too.
  const auto handle = static_cast<size_t>(request.handle());
  if (handle >= states_.size()) {
    states_.resize(handle + 1);
    published_in_step_.resize(handle + 1, -1);
    recorded_in_step_.resize(handle + 1, -1);
  }
  PAGODA_CHECK_MSG(states_[handle] == nullptr, "a handle reused before its request was finished");
  states_[handle] = std::move(pending.state);
}

void EngineCore::FinishRequest(const Request& request, bool by_client) {
  const RequestHandle handle = request.handle();
  PAGODA_CHECK(handle >= 0 && static_cast<size_t>(handle) < states_.size() && states_[handle] != nullptr);
  RequestState& state = *states_[handle];
  const double now = Now();
  state.Finish(now);
  if (!by_client) {
    const RequestTiming& t = request.timing();
    int64_t preemptions = 0;
    for (int32_t i = 0; i < request.num_sequences(); ++i) preemptions += request.sequence(i).num_preemptions();
    metrics_->OnRequestFinished(metrics::FinishedRequest{
        .finish_reason = FinishReasonName(state.finish_reason()),
        .arrival = t.arrival,
        .first_scheduled = t.first_scheduled,
        .first_token = t.first_token,
        .last_token = t.last_token,
        .finished = now,
        .num_prompt_tokens = request.num_prompt_tokens(),
        .num_cached_prompt_tokens = request.num_cached_tokens(),
        .num_generation_tokens = state.num_generated_tokens(),
        .num_preemptions = preemptions,
        .max_tokens = request.params().max_tokens ? std::optional<int64_t>(*request.params().max_tokens)
                                                  : std::nullopt});
    metrics_->OnParentRequestFinished(request.params().n, state.max_generated_tokens());
  }
  state.Publish();
  finished_ids_.push_back(request.id());
  states_[handle].reset();
  ++num_finished_requests_;
}

void EngineCore::Abort(const std::string& request_id) {
  if (const Request* request = scheduler_->request(request_id)) Abort(request->handle());
}

void EngineCore::Abort(RequestHandle handle) {
  std::unique_ptr<Request> request = scheduler_->AbortRequest(handle);
  if (!request) return;
  FinishRequest(*request, /*by_client=*/true);
  // The engine may go idle without another step: the gauges must show the freed blocks now.
  const SchedulerStats stats = scheduler_->stats();
  metrics_->SetSchedulerState(stats.num_running_requests, stats.num_waiting_requests, stats.kv_cache_usage);
}

void EngineCore::AbortAll() {
  for (size_t handle = 0; handle < states_.size(); ++handle) {
    if (states_[handle] != nullptr) Abort(static_cast<RequestHandle>(handle));
  }
}

std::vector<std::string> EngineCore::TakeFinishedIds() { return std::exchange(finished_ids_, {}); }

std::vector<GrammarConstraint*> EngineCore::ConstraintsToSample(const StepPlan& plan) {
  std::vector<GrammarConstraint*> constraints;
  for (const ScheduledSequence& e : plan.seqs) {
    if (!e.needs_logits) continue;
    RequestState& state = *states_[e.handle];
    // A beam (its request parks: no samples) takes candidates from its own mask.
    const int32_t num_masks = state.beam_search() != nullptr ? 1 : e.num_samples;
    for (int32_t k = 0; k < num_masks; ++k) {
      if (GrammarConstraint* c = state.constraint(k == 0 ? e.seq_index : k)) constraints.push_back(c);
    }
  }
  return constraints;
}

std::vector<std::vector<int32_t>> EngineCore::RunAndSample(const StepPlan& plan) {
  chunks_.clear();
  std::vector<bool> scores_prompt(plan.seqs.size());
  for (size_t j = 0; j < plan.seqs.size(); ++j) {
    const ScheduledSequence& e = plan.seqs[j];
    const RequestState& state = *states_[e.handle];
    // Row i predicts position num_computed + i + 1: score the prompt
    // positions this chunk predicts that were not scored before.
    const int64_t next = state.next_prompt_logprob_position();
    const int64_t end = e.num_computed_tokens + static_cast<int64_t>(e.token_ids.size());
    const int64_t num_prompt = static_cast<int64_t>(e.prompt_token_ids.size());
    scores_prompt[j] = next < num_prompt && next > e.num_computed_tokens && next <= end;
    const LogitsMode mode = scores_prompt[j] ? LogitsMode::kAll : e.needs_logits ? LogitsMode::kLast : LogitsMode::kNone;
    chunks_.push_back(SequenceChunk{e.token_ids, static_cast<int32_t>(e.num_computed_tokens), e.block_tables, mode});
  }
  // Structured-output masks: cached ones are copied here (a lookup). The
  // rest need a vocabulary walk, which overlaps with the forward on a
  // thread of its own when a hardware thread is free for it (each
  // sequence's grammar state is final already). When the model's threads
  // take every core, that thread could only take a core from the model and
  // stall its parallel loops, so the walks run here first: on 2 cores, one
  // request with a new schema went from 0.86 to 0.93-0.99 of free decoding
  // (bench/structured_output_bench.py). A step whose masks are all cached
  // starts no thread either way.
  std::future<void> masks;
  std::vector<GrammarConstraint*> to_walk = ConstraintsToSample(plan);
  std::erase_if(to_walk, [](GrammarConstraint* c) { return c->TryCachedNextTokenBitmask(); });
  if (!to_walk.empty() && overlap_mask_walks_) {
    masks = std::async(std::launch::async, [constraints = std::move(to_walk)] {
      for (GrammarConstraint* c : constraints) c->ComputeNextTokenBitmask();
    });
  } else {
    for (GrammarConstraint* c : to_walk) c->ComputeNextTokenBitmask();
  }
  const double forward_start = Now();
  const std::span<const float> logits = runner_->Execute(plan.copies, chunks_);
  forward_seconds_ += Now() - forward_start;
  if (masks.valid()) masks.get();
  const int64_t vocab = runner_->vocab_size();

  draws_.clear();
  int64_t row = 0;
  for (size_t j = 0; j < plan.seqs.size(); ++j) {
    const ScheduledSequence& e = plan.seqs[j];
    RequestState& state = *states_[e.handle];
    const int64_t n = static_cast<int64_t>(e.token_ids.size());
    const int64_t num_rows = chunks_[j].logits == LogitsMode::kAll ? n : chunks_[j].logits == LogitsMode::kLast ? 1 : 0;
    const std::span<const int32_t> prompt = e.prompt_token_ids;
    if (scores_prompt[j]) {
      for (int64_t i = 0; i < n; ++i) {
        const int64_t target = e.num_computed_tokens + i + 1;
        if (target != state.next_prompt_logprob_position() || target >= static_cast<int64_t>(prompt.size())) continue;
        samplers_[0]->ScorePromptTokens(logits.subspan((row + i) * vocab, vocab), {&prompt[target], 1},
                                        state.params().prompt_logprobs.value_or(0), {&sampled_, 1});
        state.AddPromptLogprob(sampled_);
      }
    }
    if (e.needs_logits) {
      const std::span<const float> last = logits.subspan((row + num_rows - 1) * vocab, vocab);
      if (BeamSearch* beam = state.beam_search()) {
        const GrammarConstraint* constraint = state.constraint(e.seq_index);
        const SamplingSequence s{&state.params(), e.prompt_token_ids, e.output_token_ids,
                                 state.bad_words_token_ids(), state.random(0),
                                 constraint ? constraint->bitmask() : std::span<const uint64_t>()};
        samplers_[0]->BeamCandidates(last, s, 2 * state.params().beam_width, beam_candidates_);
        beam->SetCandidates(e.seq_index, beam_candidates_);
        row += num_rows;
        continue;
      }
      // A fork's children all continue from sequence 0; child k is index k.
      PAGODA_CHECK(e.num_samples == 1 || e.seq_index == 0);
      for (int32_t k = 0; k < e.num_samples; ++k) {
        const int32_t index = k == 0 ? e.seq_index : k;
        const GrammarConstraint* constraint = state.constraint(index);
        draws_.push_back(Draw{j, index,
                              SamplingSequence{&state.params(), e.prompt_token_ids, e.output_token_ids,
                                               state.bad_words_token_ids(), state.random(index),
                                               constraint ? constraint->bitmask() : std::span<const uint64_t>()},
                              last});
      }
    }
    row += num_rows;
  }
  SampleDraws();
  std::vector<std::vector<int32_t>> sampled(plan.seqs.size());
  for (size_t d = 0; d < draws_.size(); ++d) {
    sampled[draws_[d].seq].push_back(drawn_[d].token_id);
    states_[plan.seqs[draws_[d].seq].handle]->SetSample(draws_[d].index, drawn_[d]);
  }
  return sampled;
}

// A row's draw depends on nothing but its own logits and sequence
// (sampler.h), so a step's draws spread over the pool's threads, each with a
// Sampler of its own; the tokens do not depend on which thread drew them.
// On one thread they took a tenth of a batch-32 decode step.
void EngineCore::SampleDraws() {
  drawn_.resize(draws_.size());
  pool_->ParallelForWorkers(static_cast<int64_t>(draws_.size()), [&](int worker, int64_t begin, int64_t end) {
    for (int64_t d = begin; d < end; ++d) {
      samplers_[worker]->Sample(draws_[d].logits, {&draws_[d].sequence, 1}, {&drawn_[d], 1});
    }
  });
}

void EngineCore::EndBeamRounds(const StepPlan& plan, UpdateResult& result) {
  for (const ScheduledSequence& e : plan.seqs) {
    if (!e.needs_logits) continue;
    RequestState* state = states_[e.handle].get();
    BeamSearch* beam = state == nullptr ? nullptr : state->beam_search();
    if (beam == nullptr || !beam->round_ready()) continue;
    if (auto request = EndBeamRound(*beam, *scheduler_, e.handle, &beam_children_)) {
      result.finished_requests.push_back(std::move(request));
    } else {
      state->ContinueBeamGrammars(beam_children_);
    }
  }
}

void EngineCore::RecordStep(const StepPlan& plan, const UpdateResult& result, const SchedulerStats& before) {
  const SchedulerStats after = scheduler_->stats();
  int64_t admitted = 0;
  for (const ScheduledSequence& e : plan.seqs) admitted += e.num_computed_tokens == e.num_cached_tokens;
  metrics_->AddPrefixCache(admitted, after.prefix_cache_queries - before.prefix_cache_queries,
                           after.prefix_cache_hits - before.prefix_cache_hits);

  // First tokens and inter-token latencies, once per request and step.
  metrics::IterationCounts counts;
  counts.num_generation_tokens = after.generation_tokens - before.generation_tokens;
  counts.num_preemptions = static_cast<int64_t>(plan.preempted.size());
  auto record = [&](const Request& request) {
    const RequestHandle handle = request.handle();
    if (recorded_in_step_[handle] == num_steps_) return;
    recorded_in_step_[handle] = num_steps_;
    const RequestTiming& t = request.timing();
    RequestState* state = states_[handle].get();
    if (state == nullptr || !t.last_token) return;
    std::optional<double>& previous = state->last_token_time();
    if (previous == t.last_token) return;  // nothing new this step
    if (!previous) {
      metrics_->OnFirstToken(*t.first_token - t.arrival);
      counts.num_prompt_tokens += request.num_prompt_tokens();
      counts.num_cached_prompt_tokens += request.num_cached_tokens();
    } else {
      metrics_->OnInterTokenLatency(*t.last_token - *previous);
    }
    previous = t.last_token;
  };
  // Running requests in output order, then finished ones, then beam
  // rounds (which produce no SequenceOutput): the order the histograms
  // have always been fed in.
  for (const SequenceOutput& out : result.outputs) {
    if (!out.request->finished()) record(*out.request);
  }
  for (const std::unique_ptr<Request>& request : result.finished_requests) record(*request);
  for (const ScheduledSequence& e : plan.seqs) {
    if (e.request->parks() && !e.request->finished()) record(*e.request);
  }
  metrics_->OnIteration(counts);
  metrics_->SetSchedulerState(after.num_running_requests, after.num_waiting_requests, after.kv_cache_usage);
}

void EngineCore::Step(const std::function<void(const EngineStats&)>& on_scheduled) {
  const double start = Now();
  const SchedulerStats before = scheduler_->stats();
  const StepPlan plan = scheduler_->Schedule();
  ++num_steps_;
  // A step can take seconds (a long prompt's chunk): the gauges show what
  // it runs while it runs, not only once it ends.
  const EngineStats planned = Stats();
  metrics_->SetSchedulerState(planned.num_running_requests, planned.num_waiting_requests, planned.kv_cache_usage);
  if (on_scheduled) on_scheduled(planned);
  const std::vector<std::vector<int32_t>> sampled =
      plan.seqs.empty() ? std::vector<std::vector<int32_t>>{} : RunAndSample(plan);
  UpdateResult result = scheduler_->Update(plan, sampled);
  EndBeamRounds(plan, result);

  to_publish_.clear();
  for (const SequenceOutput& out : result.outputs) {
    if (published_in_step_[out.handle] != num_steps_) {
      published_in_step_[out.handle] = num_steps_;
      to_publish_.push_back(out.handle);
    }
    const RequestState::Ending ending = states_[out.handle]->Apply(out);
    if (ending.stop && !IsFinished(out.status)) {
      if (auto request = scheduler_->StopSequence(out.handle, out.seq_index, ending.reason)) {
        result.finished_requests.push_back(std::move(request));
      }
    }
  }
  RecordStep(plan, result, before);
  for (const std::unique_ptr<Request>& request : result.finished_requests) FinishRequest(*request);
  for (const RequestHandle handle : to_publish_) {
    if (RequestState* state = states_[handle].get()) state->Publish();  // else finished above
  }
  const double seconds = Now() - start;
  scheduler_->ObserveStep(plan.num_batched_tokens, seconds);
  step_seconds_ += seconds;
}

EngineStats EngineCore::Stats() const {
  EngineStats stats;
  static_cast<SchedulerStats&>(stats) = scheduler_->stats();
  stats.num_kv_blocks = arena_->num_blocks();
  stats.num_steps = num_steps_;
  stats.num_finished_requests = num_finished_requests_;
  stats.step_seconds = step_seconds_;
  stats.forward_seconds = forward_seconds_;
  return stats;
}

}  // namespace pagoda
