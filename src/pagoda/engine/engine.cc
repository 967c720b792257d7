#include "pagoda/engine/engine.h"

#include <fmt/format.h>

#include <utility>

#include "pagoda/engine/engine_core.h"
#include "pagoda/engine/model_files.h"

namespace pagoda {

StatusOr<std::unique_ptr<Engine>> Engine::Create(const EngineConfig& config) {
  PAGODA_ASSIGN_OR_RETURN(std::unique_ptr<EngineCore> core, EngineCore::Create(config));
  return std::unique_ptr<Engine>(new Engine(std::move(core)));
}

StatusOr<std::unique_ptr<Engine>> Engine::Create(const EngineConfig& config, LoadedModel loaded) {
  PAGODA_ASSIGN_OR_RETURN(std::unique_ptr<EngineCore> core, EngineCore::Create(config, std::move(loaded)));
  return std::unique_ptr<Engine>(new Engine(std::move(core)));
}

Engine::Engine(std::unique_ptr<EngineCore> core) : core_(std::move(core)) {
  stats_ = core_->Stats();
  thread_ = std::thread([this] { Loop(); });
}

Engine::~Engine() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  wake_.notify_all();
  thread_.join();
}

const EngineConfig& Engine::config() const { return core_->config(); }
const ModelConfig& Engine::model_config() const { return core_->model_config(); }
const tokenizer::Tokenizer& Engine::tokenizer() const { return core_->tokenizer(); }

EngineStats Engine::Stats() const {
  std::lock_guard lock(mu_);
  return stats_;
}

const std::optional<std::string>& Engine::chat_template() const { return core_->chat_template(); }

const GenerationDefaults& Engine::generation_defaults() const { return core_->generation_defaults(); }

const metrics::EngineMetrics& Engine::metrics() const { return core_->metrics(); }

StatusOr<std::shared_ptr<OutputStream>> Engine::AddRequest(std::string request_id, std::string prompt,
                                                           SamplingParams params, int32_t priority) {
  return Submit(std::move(request_id), std::move(prompt), {}, std::move(params), priority);
}

StatusOr<std::shared_ptr<OutputStream>> Engine::AddRequest(std::string request_id,
                                                           std::vector<int32_t> prompt_token_ids,
                                                           SamplingParams params, int32_t priority) {
  return Submit(std::move(request_id), std::nullopt, std::move(prompt_token_ids), std::move(params), priority);
}

StatusOr<std::shared_ptr<OutputStream>> Engine::Submit(std::string request_id, std::optional<std::string> prompt,
                                                       std::vector<int32_t> prompt_token_ids, SamplingParams params,
                                                       int32_t priority) {
  std::optional<int64_t> seed;
  {
    std::lock_guard lock(mu_);
    if (live_ids_.contains(request_id)) {
      return InvalidArgumentError(fmt::format("request id '{}' is already in use", request_id));
    }
    // Checked before tokenizing too, which a full queue would waste.
    PAGODA_RETURN_IF_ERROR(CheckWaitingRoomLocked());
    // Derived seeds differ per request, in the order requests are added.
    if (config().seed) seed = static_cast<int64_t>(static_cast<uint64_t>(*config().seed) +
                                                   0x9E3779B97F4A7C15ull * static_cast<uint64_t>(num_added_++));
  }
  // Tokenizing and checking happen here, off the engine thread.
  PAGODA_ASSIGN_OR_RETURN(PendingRequest pending, core_->Prepare(request_id, std::move(prompt),
                                                                 std::move(prompt_token_ids), std::move(params),
                                                                 priority, seed));
  std::shared_ptr<OutputStream> stream = pending.state->stream();
  {
    std::lock_guard lock(mu_);
    // Checked again: another thread may have taken the id, or the last
    // place in the queue, meanwhile.
    PAGODA_RETURN_IF_ERROR(CheckWaitingRoomLocked());
    if (!live_ids_.insert(request_id).second) {
      return InvalidArgumentError(fmt::format("request id '{}' is already in use", request_id));
    }
    inbox_.push_back(Command{std::make_unique<PendingRequest>(std::move(pending)), {}});
    ++num_inbox_adds_;
  }
  wake_.notify_one();
  return stream;
}

Status Engine::CheckWaitingRoomLocked() {
  const int64_t limit = config().max_num_waiting_requests;
  if (limit == 0 || num_inbox_adds_ + num_unscheduled_taken_ < limit) return Status::Ok();
  // The metrics are thread-safe: counted here, on the refused caller's thread.
  core_->metrics().OnRequestRejected();
  return UnavailableError(fmt::format(
      "the waiting queue is full: {} requests are waiting to be scheduled (max_num_waiting_requests); retry later",
      limit));
}

void Engine::PublishLocked(const EngineStats& stats) {
  stats_ = stats;
  num_unscheduled_taken_ = stats.num_queued_requests;
}

void Engine::Abort(const std::string& request_id) {
  {
    std::lock_guard lock(mu_);
    inbox_.push_back(Command{nullptr, request_id});
  }
  wake_.notify_one();
}

void Engine::Loop() {
  std::vector<Command> commands;
  while (true) {
    {
      std::unique_lock lock(mu_);
      if (!core_->has_work()) wake_.wait(lock, [&] { return stopping_ || !inbox_.empty(); });
      if (stopping_) break;
      commands.swap(inbox_);
      num_unscheduled_taken_ += std::exchange(num_inbox_adds_, 0);
    }
    for (Command& c : commands) {
      if (c.add) {
        core_->Add(std::move(*c.add));
      } else {
        core_->Abort(c.abort_id);
      }
    }
    commands.clear();
    if (core_->has_work()) {
      core_->Step([&](const EngineStats& planned) {
        std::lock_guard lock(mu_);
        PublishLocked(planned);
      });
    }
    const EngineStats stats = core_->Stats();
    std::vector<std::string> finished = core_->TakeFinishedIds();
    std::lock_guard lock(mu_);
    PublishLocked(stats);
    for (const std::string& id : finished) live_ids_.erase(id);
  }
  // Shutting down: requests never taken in, and those running, end as aborted.
  std::vector<Command> rest;
  {
    std::lock_guard lock(mu_);
    rest.swap(inbox_);
  }
  for (Command& c : rest) {
    if (c.add) core_->Add(std::move(*c.add));
  }
  core_->AbortAll();
}

}  // namespace pagoda
