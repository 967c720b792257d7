#include "pagoda/engine/llm.h"

#include <fmt/format.h>

#include <condition_variable>
#include <mutex>
#include <stdexcept>

#include "pagoda/base/check.h"

namespace pagoda {
namespace {

std::unique_ptr<Engine> CreateOrThrow(const EngineConfig& config) {
  StatusOr<std::unique_ptr<Engine>> engine = Engine::Create(config);
  if (!engine.ok()) throw std::runtime_error(engine.status().ToString());
  return std::move(*engine);
}

template <typename T>
T ValueOrThrow(StatusOr<T> value) {
  if (!value.ok()) throw std::invalid_argument(value.status().ToString());
  return std::move(*value);
}

// Wakes the generating thread whenever any of its streams gets an output:
// the streams' listeners (on the engine thread) count, the waiter waits
// for the count to move past what it last saw. Shared with the listeners,
// which may outlive the call.
class OutputSignal {
 public:
  void Notify() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      ++count_;
    }
    changed_.notify_one();
  }
  // Returns the count once it differs from `seen`.
  uint64_t WaitPast(uint64_t seen) {
    std::unique_lock<std::mutex> lock(mu_);
    changed_.wait(lock, [&] { return count_ != seen; });
    return count_;
  }

 private:
  std::mutex mu_;
  std::condition_variable changed_;
  uint64_t count_ = 0;
};

// Aborts the streams' requests and waits for their final outputs, so that
// nothing of a refused or interrupted batch keeps running.
void AbortAll(Engine& engine, const std::vector<std::shared_ptr<OutputStream>>& streams) {
  for (const auto& s : streams) engine.Abort(s->request_id());
  for (const auto& s : streams) {
    while (s->Next()) {
    }
  }
}

}  // namespace

LLM::LLM(const EngineConfig& config) : engine_(CreateOrThrow(config)) {}

StatusOr<std::unique_ptr<LLM>> LLM::Create(const EngineConfig& config) {
  PAGODA_ASSIGN_OR_RETURN(std::unique_ptr<Engine> engine, Engine::Create(config));
  return std::unique_ptr<LLM>(new LLM(std::move(engine)));
}

std::vector<RequestOutput> LLM::generate(const std::vector<std::string>& prompts, const SamplingParams& params) {
  return generate(prompts, std::vector<SamplingParams>(prompts.size(), params));
}

std::vector<RequestOutput> LLM::generate(const std::vector<std::string>& prompts,
                                         const std::vector<SamplingParams>& params) {
  return ValueOrThrow(Generate(prompts, params));
}

StatusOr<std::vector<RequestOutput>> LLM::Generate(const std::vector<std::string>& prompts,
                                                   const std::vector<SamplingParams>& params) {
  std::vector<PromptInput> inputs;
  inputs.reserve(prompts.size());
  for (const std::string& p : prompts) inputs.push_back(PromptInput{.text = p});
  return GenerateInputs(inputs, params);
}

StatusOr<std::shared_ptr<OutputStream>> LLM::Add(const PromptInput& prompt, SamplingParams params) {
  params.output_kind = OutputKind::kFinalOnly;  // only the end result is wanted
  std::string id = fmt::format("llm-{}", next_request_++);
  if (prompt.token_ids) return engine_->AddRequest(std::move(id), *prompt.token_ids, std::move(params), prompt.priority);
  if (!prompt.text) return InvalidArgumentError("a prompt needs text or token ids");
  return engine_->AddRequest(std::move(id), *prompt.text, std::move(params), prompt.priority);
}

StatusOr<std::vector<RequestOutput>> LLM::GenerateInputs(const std::vector<PromptInput>& prompts,
                                                         const std::vector<SamplingParams>& params,
                                                         const FinishedCallback& on_finished) {
  if (params.size() != prompts.size()) {
    return InvalidArgumentError(
        fmt::format("{} prompts but {} sampling parameter sets", prompts.size(), params.size()));
  }
  auto signal = std::make_shared<OutputSignal>();
  std::vector<std::shared_ptr<OutputStream>> streams;
  for (size_t i = 0; i < prompts.size(); ++i) {
    StatusOr<std::shared_ptr<OutputStream>> stream = Add(prompts[i], params[i]);
    if (!stream.ok()) {
      AbortAll(*engine_, streams);
      return stream.status();
    }
    (*stream)->SetListener([signal] { signal->Notify(); });
    streams.push_back(std::move(*stream));
  }
  std::vector<std::optional<RequestOutput>> outputs(prompts.size());
  size_t num_finished = 0;
  uint64_t seen = 0;
  try {
    while (num_finished < prompts.size()) {
      seen = signal->WaitPast(seen);
      for (size_t i = 0; i < streams.size(); ++i) {
        if (outputs[i]) continue;
        std::optional<RequestOutput> out = streams[i]->TryNext();
        if (!out) continue;
        PAGODA_CHECK(out->finished);  // final-only streams carry one output
        // Token prompts report no text; a rendered chat reports its text.
        if (prompts[i].token_ids && prompts[i].text) out->prompt = prompts[i].text;
        outputs[i] = std::move(*out);
        ++num_finished;
        if (on_finished) on_finished(*outputs[i]);
      }
    }
  } catch (...) {
    std::vector<std::shared_ptr<OutputStream>> running;
    for (size_t i = 0; i < streams.size(); ++i) {
      if (!outputs[i]) running.push_back(streams[i]);
    }
    AbortAll(*engine_, running);
    throw;
  }
  std::vector<RequestOutput> result;
  result.reserve(outputs.size());
  for (std::optional<RequestOutput>& out : outputs) result.push_back(std::move(*out));
  return result;
}

}  // namespace pagoda
