// The engine's single-threaded machinery: the model, KV cache, runner,
// sampler and scheduler, and one RequestState per live request. Engine
// (engine.h) owns the thread that drives it; every method here runs on that
// thread except where it says otherwise.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "pagoda/engine/engine_config.h"
#include "pagoda/request/generation_defaults.h"
#include "pagoda/engine/request_state.h"
#include "pagoda/engine/engine_stats.h"
#include "pagoda/engine/model_files.h"
#include "pagoda/formats/gguf/gguf_file.h"
#include "pagoda/kernels/compute_context.h"
#include "pagoda/metrics/engine_metrics.h"
#include "pagoda/model/model.h"
#include "pagoda/runner/kv_cache_arena.h"
#include "pagoda/runner/model_runner.h"
#include "pagoda/sampler/sampler.h"
#include "pagoda/scheduler/scheduler.h"
#include "pagoda/threading/thread_pool.h"
#include "pagoda/tokenizer/tokenizer.h"

namespace pagoda {

// A request checked and built on the caller's thread, on its way to the engine thread.
struct PendingRequest {
  std::unique_ptr<Request> request;
  std::unique_ptr<RequestState> state;
};

class EngineCore {
 public:
  // Loads the model and tokenizer, allocates the KV cache, and logs its size.
  static StatusOr<std::unique_ptr<EngineCore>> Create(const EngineConfig& config);
  // The same with the model already loaded (config.model is then unused).
  static StatusOr<std::unique_ptr<EngineCore>> Create(const EngineConfig& config, LoadedModel loaded);

  // The configuration with defaults resolved (max_model_len).
  const EngineConfig& config() const { return config_; }
  const tokenizer::Tokenizer& tokenizer() const { return *tokenizer_; }
  const ModelConfig& model_config() const { return model_->config(); }
  // The model's Jinja chat template (GGUF tokenizer.chat_template), if it has one.
  const std::optional<std::string>& chat_template() const { return chat_template_; }
  const GenerationDefaults& generation_defaults() const { return generation_defaults_; }
  int64_t num_kv_blocks() const { return arena_->num_blocks(); }
  // Seconds on the monotonic clock of request timings.
  static double Now();

  // Any thread: validates and tokenizes a request, refusing what can never
  // run; `seed` overrides the params' seed for the random streams only.
  StatusOr<PendingRequest> Prepare(std::string request_id, std::optional<std::string> prompt,
                                   std::vector<int32_t> prompt_token_ids, SamplingParams params, int32_t priority,
                                   std::optional<int64_t> seed) const;

  void Add(PendingRequest pending);
  // Ends a request as aborted and publishes its final output; unknown ids are ignored.
  void Abort(const std::string& request_id);
  void AbortAll();
  bool has_work() const { return scheduler_->has_unfinished_requests(); }
  // Schedules, runs, samples, updates and publishes one step; calls
  // `on_scheduled` with the stats as planned, before the step runs.
  void Step(const std::function<void(const EngineStats&)>& on_scheduled = {});
  // Ids whose final output was published since the last call.
  std::vector<std::string> TakeFinishedIds();
  EngineStats Stats() const;
  // Thread-safe: the server renders them while the engine records.
  const metrics::EngineMetrics& metrics() const { return *metrics_; }
  metrics::EngineMetrics& metrics() { return *metrics_; }

 private:
  EngineCore() = default;
  void Abort(RequestHandle handle);
  std::vector<std::vector<int32_t>> TokenizeBadWords(const std::vector<std::string>& words) const;
  // The reasoning end a request's grammar waits for: the configured end
  // marker, unless the prompt already closed its reasoning (a template
  // that turns thinking off writes both markers); else empty.
  std::string ReasoningEndToAwait(const Request& request) const;
  // Runs the plan's chunks and samples: one token list per plan entry.
  std::vector<std::vector<int32_t>> RunAndSample(const StepPlan& plan);
  void SampleDraws();
  // The structured-output constraints of the plan's sampled sequences.
  std::vector<GrammarConstraint*> ConstraintsToSample(const StepPlan& plan);
  // `by_client`: ended by Abort(), which the request metrics leave out as
  // vLLM's do for client aborts.
  void FinishRequest(const Request& request, bool by_client = false);
  // Per-step metrics: prefix-cache lookups of the admitted, first tokens,
  // inter-token latencies, iteration counts and the scheduler's gauges.
  void RecordStep(const StepPlan& plan, const UpdateResult& result, const SchedulerStats& before);
  // Ends the round of every beam request whose beams all have candidates
  // now, adding the requests whose search is over to `result`.
  void EndBeamRounds(const StepPlan& plan, UpdateResult& result);

  EngineConfig config_;
  std::shared_ptr<const gguf::GgufFile> file_;
  std::unique_ptr<tokenizer::Tokenizer> tokenizer_;
  std::optional<std::string> chat_template_;
  GenerationDefaults generation_defaults_;
  // generation_config.json's EOS ids other than the tokenizer's: stop tokens
  // of every request that does not ignore EOS.
  std::vector<int32_t> extra_eos_ids_;
  std::unique_ptr<Model> model_;
  std::unique_ptr<KvCacheArena> arena_;
  std::unique_ptr<ThreadPool> pool_;
  // Structured-output mask walks run beside the forward (a hardware thread
  // is free for them) rather than before it.
  bool overlap_mask_walks_ = false;
  std::unique_ptr<kernels::ComputeContext> compute_;  // the best kernel set, on pool_
  std::unique_ptr<ModelRunner> runner_;
  // One per pool thread (each holds a vocabulary's scratch), so that a
  // step's draws run on all of them; [0] also scores prompts and beams.
  std::vector<std::unique_ptr<Sampler>> samplers_;
  std::unique_ptr<StructuredOutputCompiler> structured_outputs_;
  std::unique_ptr<Scheduler> scheduler_;
  std::unique_ptr<metrics::EngineMetrics> metrics_;
  // The output side of each live request (detokenizer, stop strings,
  // logprobs, stream), at the handle the scheduler gave its Request, which
  // it reads rather than copies.
  std::vector<std::unique_ptr<RequestState>> states_;
  // Per handle, the last step that published or recorded it, so that each
  // request is handled once per step without scanning.
  std::vector<int64_t> published_in_step_;
  std::vector<int64_t> recorded_in_step_;
  std::vector<std::string> finished_ids_;
  // Prepare() runs on any thread: each prompt-logprobs request's cache salt.
  mutable std::atomic<int64_t> next_prompt_logprobs_salt_{0};
  int64_t num_steps_ = 0;
  double step_seconds_ = 0;
  double forward_seconds_ = 0;
  int64_t num_finished_requests_ = 0;
  // Scratch reused every step.
  std::vector<SequenceChunk> chunks_;
  std::vector<RequestHandle> to_publish_;
  SampledToken sampled_;
  // A step's draws: each sampled sequence's next token from its logits row.
  struct Draw {
    size_t seq;     // in the step plan
    int32_t index;  // the request's sequence
    SamplingSequence sequence;
    std::span<const float> logits;
  };
  std::vector<Draw> draws_;
  std::vector<SampledToken> drawn_;
  std::vector<TokenLogprob> beam_candidates_;
  std::vector<ParkedSuccessor> beam_children_;  // the last beam round's
};

}  // namespace pagoda
