// The engine as the server and the Python bindings see it: add requests,
// abort them, and read each request's outputs from its stream. One engine
// thread runs the step loop (intake, schedule, run, sample, update,
// publish) and sleeps when there is nothing to do; this class is safe to
// call from any thread.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <unordered_set>
#include <vector>

#include "pagoda/base/status.h"
#include "pagoda/engine/engine_config.h"
#include "pagoda/engine/engine_stats.h"
#include "pagoda/request/generation_defaults.h"
#include "pagoda/engine/output_stream.h"
#include "pagoda/engine/request_output.h"
#include "pagoda/model/model_config.h"
#include "pagoda/request/sampling_params.h"

namespace pagoda {

namespace metrics {
class EngineMetrics;  // metrics/engine_metrics.h
}  // namespace metrics
namespace tokenizer {
class Tokenizer;  // tokenizer/tokenizer.h
}  // namespace tokenizer

class EngineCore;
struct LoadedModel;  // engine/model_files.h
struct PendingRequest;

class Engine {
 public:
  // Loads the model, allocates the KV cache (logging its blocks, tokens and
  // the maximum concurrency at max_model_len) and starts the engine thread.
  static StatusOr<std::unique_ptr<Engine>> Create(const EngineConfig& config);
  // The same with the model already loaded by LoadModelFiles (config.model
  // is then unused): for callers that size the engine from the model.
  static StatusOr<std::unique_ptr<Engine>> Create(const EngineConfig& config, LoadedModel loaded);
  // Stops the engine thread; requests still running end as aborted.
  ~Engine();
  Engine(const Engine&) = delete;
  Engine& operator=(const Engine&) = delete;

  // Queues a request for the next step and returns its output stream.
  // Refused synchronously: an id already in use, invalid sampling
  // parameters, token ids outside the vocabulary, an empty prompt, a prompt
  // of max_model_len tokens or more (INVALID_ARGUMENT); a full waiting
  // queue, max_num_waiting_requests requests accepted and not yet
  // scheduled (UNAVAILABLE: retrying later may succeed; counted in
  // pagoda:num_requests_rejected). A place frees when the engine thread
  // schedules or drops the request, which it reports when it plans a step
  // and when it ends one.
  StatusOr<std::shared_ptr<OutputStream>> AddRequest(std::string request_id, std::string prompt,
                                                     SamplingParams params, int32_t priority = 0);
  StatusOr<std::shared_ptr<OutputStream>> AddRequest(std::string request_id, std::vector<int32_t> prompt_token_ids,
                                                     SamplingParams params, int32_t priority = 0);
  // Ends a request at the next step, freeing its blocks; its stream gets a
  // final output with finish_reason "abort". Unknown or finished ids are ignored.
  void Abort(const std::string& request_id);

  // As of the last step's plan (refreshed again when the step ends).
  EngineStats Stats() const;
  // The configuration with defaults resolved.
  const EngineConfig& config() const;
  const ModelConfig& model_config() const;
  const tokenizer::Tokenizer& tokenizer() const;
  const std::optional<std::string>& chat_template() const;
  // The model's recommended sampling values under --generation-config auto
  // (empty otherwise, and for GGUF files).
  const GenerationDefaults& generation_defaults() const;
  // vLLM's metrics, recorded by the engine thread; thread-safe to render.
  const metrics::EngineMetrics& metrics() const;

 private:
  // One inbox entry: a request to add, or (when `add` is null) an abort.
  struct Command {
    std::unique_ptr<PendingRequest> add;
    std::string abort_id;
  };

  explicit Engine(std::unique_ptr<EngineCore> core);
  StatusOr<std::shared_ptr<OutputStream>> Submit(std::string request_id, std::optional<std::string> prompt,
                                                 std::vector<int32_t> prompt_token_ids, SamplingParams params,
                                                 int32_t priority);
  void Loop();
  // UNAVAILABLE, counted in the metrics, when max_num_waiting_requests
  // requests are waiting; needs mu_.
  Status CheckWaitingRoomLocked();
  // Publishes a snapshot of the engine thread's stats; needs mu_.
  void PublishLocked(const EngineStats& stats);

  std::unique_ptr<EngineCore> core_;  // used by the engine thread only, but for its thread-safe parts
  mutable std::mutex mu_;
  std::condition_variable wake_;
  std::vector<Command> inbox_;
  std::unordered_set<std::string> live_ids_;  // added and not yet finished
  int64_t num_added_ = 0;                     // for config.seed's per-request seeds
  // Accepted and not yet scheduled: adds in the inbox, plus those the
  // engine thread took in and had not scheduled when it last published.
  int64_t num_inbox_adds_ = 0;
  int64_t num_unscheduled_taken_ = 0;
  bool stopping_ = false;
  EngineStats stats_;
  std::thread thread_;
};

}  // namespace pagoda
