// One API request's generations: its prompts added to the engine as
// requests "<id>-<k>", their outputs handed to the endpoint in order, and
// all of them aborted if the client goes away or the server shuts down.
// Nothing here blocks: outputs arrive through OutputStream listeners on the
// engine thread.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "pagoda/engine/engine.h"
#include "pagoda/server/http/http_server.h"
#include "pagoda/server/job_registry.h"

namespace pagoda::server {

// What the endpoint does with a job's outputs. Each is called with the
// job's lock held, one call at a time.
struct JobCallbacks {
  // In each prompt's order; `prompt_index` says whose output it is.
  std::function<void(size_t prompt_index, const RequestOutput& output)> on_output;
  // Once, after the last finished output.
  std::function<void()> on_done;
  // Once, instead of on_done, when the server shuts down with the job
  // unfinished: the endpoint ends its response itself, and later outputs
  // are dropped.
  std::function<void()> on_shutdown;
};

class GenerationJob : public std::enable_shared_from_this<GenerationJob> {
 public:
  // Adds every prompt (token ids, with its own params) to the engine. All
  // or nothing: if the engine refuses one, those already added are aborted
  // and the refusal returned. Outputs wait until Listen().
  static StatusOr<std::shared_ptr<GenerationJob>> Start(Engine& engine, const std::string& id,
                                                        std::vector<std::vector<int32_t>> prompts,
                                                        const std::vector<SamplingParams>& params, int32_t priority,
                                                        JobCallbacks callbacks);

  // Registers the job until it ends and starts handing outputs over (so the
  // caller can first send headers). A registry already shutting down gets
  // the job shut down at once.
  void Listen(JobRegistry& registry);
  // Ends every unfinished generation (its final output still arrives).
  void Abort();
  // Aborts the unfinished generations and ends the response now, through
  // on_shutdown.
  void Shutdown();

 private:
  GenerationJob(Engine& engine, JobCallbacks callbacks) : engine_(engine), callbacks_(std::move(callbacks)) {}
  void Drain(size_t prompt_index);
  void AbortLocked();
  void EndLocked();  // the job is over: it leaves the registry

  Engine& engine_;
  std::mutex mu_;
  JobCallbacks callbacks_;
  JobRegistry* registry_ = nullptr;
  std::vector<std::string> ids_;
  std::vector<std::shared_ptr<OutputStream>> streams_;
  size_t num_finished_ = 0;
  bool ended_ = false;  // done, or shut down
};

// Connects a started job to its client: the engine's refusal as an error
// response, else the stream opened (when streaming), the outputs started,
// and the job aborted if the client goes away.
void ConnectToClient(const StatusOr<std::shared_ptr<GenerationJob>>& job, bool stream, JobRegistry& registry,
                     const std::shared_ptr<http::Responder>& responder);

}  // namespace pagoda::server
