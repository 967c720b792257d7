#include "pagoda/server/generation_job.h"

#include <fmt/format.h>

#include "pagoda/server/responses.h"

namespace pagoda::server {

StatusOr<std::shared_ptr<GenerationJob>> GenerationJob::Start(Engine& engine, const std::string& id,
                                                               std::vector<std::vector<int32_t>> prompts,
                                                               const std::vector<SamplingParams>& params,
                                                               int32_t priority, JobCallbacks callbacks) {
  auto job = std::shared_ptr<GenerationJob>(new GenerationJob(engine, std::move(callbacks)));
  for (size_t k = 0; k < prompts.size(); ++k) {
    std::string request_id = prompts.size() == 1 ? id : fmt::format("{}-{}", id, k);
    StatusOr<std::shared_ptr<OutputStream>> stream =
        engine.AddRequest(request_id, std::move(prompts[k]), params.at(k), priority);
    if (!stream.ok()) {
      for (const std::string& added : job->ids_) engine.Abort(added);
      return stream.status();
    }
    job->ids_.push_back(std::move(request_id));
    job->streams_.push_back(std::move(*stream));
  }
  return job;
}

void GenerationJob::Listen(JobRegistry& registry) {
  {
    std::lock_guard lock(mu_);
    registry_ = &registry;
  }
  if (!registry.Add(shared_from_this())) {
    Shutdown();
    return;
  }
  // Each listener holds the job until its stream's final output (Drain drops it).
  std::shared_ptr<GenerationJob> self = shared_from_this();
  for (size_t k = 0; k < streams_.size(); ++k) {
    streams_[k]->SetListener([self, k] { self->Drain(k); });
  }
}

void GenerationJob::Drain(size_t prompt_index) {
  std::lock_guard lock(mu_);
  OutputStream& stream = *streams_[prompt_index];
  while (std::optional<RequestOutput> out = stream.TryNext()) {
    if (!ended_) callbacks_.on_output(prompt_index, *out);
    if (!out->finished) continue;
    // The listener holds the job: dropping it ends the cycle stream -> job.
    stream.SetListener([] {});
    if (++num_finished_ == streams_.size() && !ended_) {
      callbacks_.on_done();
      EndLocked();
    }
  }
}

void GenerationJob::Abort() {
  std::lock_guard lock(mu_);
  AbortLocked();
}

void GenerationJob::AbortLocked() {
  for (size_t k = 0; k < ids_.size(); ++k) {
    if (!streams_[k]->finished()) engine_.Abort(ids_[k]);
  }
}

void GenerationJob::Shutdown() {
  std::lock_guard lock(mu_);
  if (ended_) return;
  AbortLocked();
  callbacks_.on_shutdown();
  EndLocked();
}

void GenerationJob::EndLocked() {
  ended_ = true;
  if (registry_ != nullptr) registry_->Remove(this);
}

void ConnectToClient(const StatusOr<std::shared_ptr<GenerationJob>>& job, bool stream, JobRegistry& registry,
                     const std::shared_ptr<http::Responder>& responder) {
  if (!job.ok()) return responder->Send(ErrorResponse(FromStatus(job.status())));
  // Headers first: outputs may be written as soon as Listen() returns.
  // An SSE comment line, which clients skip, probes a client that half-closed.
  if (stream) responder->StartStream(200, "text/event-stream", {{"Cache-Control", "no-cache"}}, ": ping\n\n");
  (*job)->Listen(registry);
  responder->OnClientGone([g = *job] { g->Abort(); });
}

}  // namespace pagoda::server
