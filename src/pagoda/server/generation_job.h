// One API request's generations: its prompts added to the engine as
// requests "<id>-<k>", their outputs handed to the endpoint in order, and
// all of them aborted if the client goes away. Nothing here blocks: outputs
// arrive through OutputStream listeners on the engine thread.
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

namespace pagoda::server {

class GenerationJob : public std::enable_shared_from_this<GenerationJob> {
 public:
  // Called with the job's lock held, one call at a time, in each prompt's
  // order; `prompt_index` says whose output it is.
  using OnOutput = std::function<void(size_t prompt_index, const RequestOutput& output)>;
  // Called once, after the last finished output.
  using OnDone = std::function<void()>;

  // Adds every prompt (token ids, with its own params) to the engine. All
  // or nothing: if the engine refuses one, those already added are aborted
  // and the refusal returned. Outputs wait until Listen().
  static StatusOr<std::shared_ptr<GenerationJob>> Start(Engine& engine, const std::string& id,
                                                        std::vector<std::vector<int32_t>> prompts,
                                                        const std::vector<SamplingParams>& params, int32_t priority,
                                                        OnOutput on_output, OnDone on_done);

  // Starts handing outputs over (so the caller can first send headers).
  void Listen();
  // Ends every unfinished generation (its final output still arrives).
  void Abort();

 private:
  GenerationJob(Engine& engine, OnOutput on_output, OnDone on_done)
      : engine_(engine), on_output_(std::move(on_output)), on_done_(std::move(on_done)) {}
  void Drain(size_t prompt_index);

  Engine& engine_;
  std::mutex mu_;
  OnOutput on_output_;
  OnDone on_done_;
  std::vector<std::string> ids_;
  std::vector<std::shared_ptr<OutputStream>> streams_;
  size_t num_finished_ = 0;
};

// Connects a started job to its client: the engine's refusal as an error
// response, else the stream opened (when streaming), the outputs started,
// and the job aborted if the client goes away.
void ConnectToClient(const StatusOr<std::shared_ptr<GenerationJob>>& job, bool stream,
                     const std::shared_ptr<http::Responder>& responder);

}  // namespace pagoda::server
