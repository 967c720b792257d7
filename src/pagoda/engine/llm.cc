#include "pagoda/engine/llm.h"

#include <fmt/format.h>

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
  if (params.size() != prompts.size()) {
    return InvalidArgumentError(
        fmt::format("{} prompts but {} sampling parameter sets", prompts.size(), params.size()));
  }
  std::vector<std::shared_ptr<OutputStream>> streams;
  for (size_t i = 0; i < prompts.size(); ++i) {
    SamplingParams p = params[i];
    p.output_kind = OutputKind::kFinalOnly;  // only the end result is wanted
    StatusOr<std::shared_ptr<OutputStream>> stream =
        engine_->AddRequest(fmt::format("llm-{}", next_request_++), prompts[i], std::move(p));
    if (!stream.ok()) {
      for (const auto& s : streams) engine_->Abort(s->request_id());
      for (const auto& s : streams) {
        while (s->Next()) {
        }
      }
      return stream.status();
    }
    streams.push_back(std::move(*stream));
  }
  std::vector<RequestOutput> outputs;
  for (const auto& s : streams) {
    std::optional<RequestOutput> out = s->Next();
    PAGODA_CHECK(out && out->finished);
    outputs.push_back(std::move(*out));
  }
  return outputs;
}

}  // namespace pagoda
