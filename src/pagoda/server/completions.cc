#include "pagoda/server/completions.h"

#include <mutex>

#include "pagoda/server/generation_job.h"
#include "pagoda/server/logprobs_json.h"
#include "pagoda/server/prompt_input.h"
#include "pagoda/server/request_fields.h"
#include "pagoda/server/request_options.h"
#include "pagoda/server/responses.h"
#include "pagoda/server/stream_options.h"

namespace pagoda::server {
namespace {

// One choice's running state: what was sent, for echo, offsets and usage.
struct ChoiceState {
  bool started = false;
  bool finished = false;  // its finish_reason was streamed
  size_t text_offset = 0;
  int64_t num_tokens = 0;
};

// The state of one completions request while it runs.
class CompletionsJob {
 public:
  CompletionsJob(const ServingContext& ctx, const RequestOptions& options, std::vector<PromptInput> prompts,
                 const SamplingParams& params, bool echo, bool prompt_logprobs, bool stream,
                 StreamOptions stream_options, std::shared_ptr<http::Responder> responder)
      : id_(options.id),
        return_token_ids_(options.return_token_ids),
        tokens_as_ids_(options.tokens_as_ids),
        created_(UnixSeconds()),
        model_(ctx.model_name),
        tokenizer_(ctx.engine->tokenizer()),
        prompts_(std::move(prompts)),
        n_(params.n),
        logprobs_(params.logprobs),
        echo_(echo),
        prompt_logprobs_(prompt_logprobs),
        stream_(stream),
        stream_options_(stream_options),
        responder_(std::move(responder)),
        choices_(prompts_.size() * static_cast<size_t>(n_)),
        finals_(prompts_.size()) {
    for (const PromptInput& p : prompts_) num_prompt_tokens_ += static_cast<int64_t>(p.token_ids.size());
  }

  const std::string& id() const { return id_; }
  const std::vector<PromptInput>& prompts() const { return prompts_; }

  void OnOutput(size_t prompt_index, const RequestOutput& out) {
    if (!stream_) {
      if (out.finished) finals_[prompt_index] = out;
      return;
    }
    for (const CompletionOutput& c : out.outputs) {
      const size_t index = prompt_index * n_ + c.index;
      WriteChunk(Choice(prompt_index, index, c, out));
      if (c.finish_reason) choices_[index].finished = true;
    }
  }

  void OnDone() {
    if (!stream_) {
      nlohmann::json body = Envelope();
      body["choices"] = nlohmann::json::array();
      for (size_t k = 0; k < finals_.size(); ++k) {
        for (const CompletionOutput& c : finals_[k].outputs) {
          body["choices"].push_back(Choice(k, k * n_ + c.index, c, finals_[k]));
        }
      }
      body["usage"] = UsageJson(num_prompt_tokens_, num_completion_tokens_);
      responder_->Send(JsonResponse(200, body));
      return;
    }
    EndStream();
  }

  // The server is shutting down: every unfinished choice ends as aborted.
  void OnShutdown() {
    if (!stream_) return responder_->Send(ErrorResponse(ShutdownError()));
    for (size_t index = 0; index < choices_.size(); ++index) {
      if (choices_[index].finished) continue;
      WriteChunk({{"index", index},
                  {"text", ""},
                  {"logprobs", nullptr},
                  {"finish_reason", FinishReasonJson(FinishReason::kAbort)},
                  {"stop_reason", nullptr},
                  {"prompt_logprobs", nullptr}});
    }
    EndStream();
  }

 private:
  void EndStream() {
    if (stream_options_.include_usage) {
      nlohmann::json chunk = Envelope();
      chunk["choices"] = nlohmann::json::array();
      chunk["usage"] = UsageJson(num_prompt_tokens_, num_completion_tokens_);
      responder_->Write(SseEvent(chunk));
    }
    responder_->Write(std::string(kSseDone));
    responder_->End();
  }

  void WriteChunk(nlohmann::json choice) {
    nlohmann::json chunk = Envelope();
    chunk["choices"] = nlohmann::json::array({std::move(choice)});
    if (stream_options_.include_usage && stream_options_.continuous_usage_stats) {
      chunk["usage"] = UsageJson(num_prompt_tokens_, num_completion_tokens_);
    }
    responder_->Write(SseEvent(chunk));
  }

  nlohmann::json Envelope() const {
    return {{"id", id_}, {"object", "text_completion"}, {"created", created_}, {"model", model_}};
  }

  // The choice for `c` (all of it, or its delta when streaming).
  nlohmann::json Choice(size_t prompt_index, size_t index, const CompletionOutput& c, const RequestOutput& out) {
    ChoiceState& state = choices_[index];
    const bool first = !state.started;
    std::string text;
    nlohmann::json logprobs;
    nlohmann::json prompt_logprobs;
    if (prompt_logprobs_ && first && out.prompt_logprobs) {
      prompt_logprobs = PromptLogprobsJson(*out.prompt_logprobs);
    }
    const PromptInput& prompt = prompts_[prompt_index];
    if (echo_ && first) {
      text = prompt.text;
      if (logprobs_ && out.prompt_logprobs) {
        const StatusOr<std::string_view> piece = tokenizer_.TokenToPiece(prompt.token_ids.front());
        const UnsetToken unset{prompt.token_ids.front(), piece.ok() ? std::string(*piece) : ""};
        AppendCompletionLogprobs(logprobs, *out.prompt_logprobs, unset, state.text_offset, tokens_as_ids_);
      } else {
        state.text_offset += text.size();
      }
    }
    state.started = true;
    text += c.text;
    if (logprobs_ && c.logprobs) {
      std::vector<std::optional<PositionLogprobs>> positions(c.logprobs->begin(), c.logprobs->end());
      AppendCompletionLogprobs(logprobs, positions, {}, state.text_offset, tokens_as_ids_);
    }
    state.num_tokens += static_cast<int64_t>(c.token_ids.size());
    num_completion_tokens_ += static_cast<int64_t>(c.token_ids.size());
    nlohmann::json choice = {{"index", index},
                             {"text", std::move(text)},
                             {"logprobs", std::move(logprobs)},
                             {"finish_reason", FinishReasonJson(c.finish_reason)},
                             {"stop_reason", StopReasonJson(c.stop_reason)},
                             {"prompt_logprobs", std::move(prompt_logprobs)}};
    // vLLM's return_token_ids: the prompt's ids with a choice's first
    // chunk, and the ids each chunk adds.
    if (return_token_ids_) {
      if (first) choice["prompt_token_ids"] = prompt.token_ids;
      choice["token_ids"] = c.token_ids;
    }
    return choice;
  }

  const std::string id_;
  const bool return_token_ids_;
  const bool tokens_as_ids_;
  const int64_t created_;
  const std::string model_;
  const tokenizer::Tokenizer& tokenizer_;
  const std::vector<PromptInput> prompts_;
  const size_t n_;
  const std::optional<int32_t> logprobs_;
  const bool echo_;
  const bool prompt_logprobs_;  // the client asked for them (echo may compute them too)
  const bool stream_;
  const StreamOptions stream_options_;
  const std::shared_ptr<http::Responder> responder_;
  std::vector<ChoiceState> choices_;
  std::vector<RequestOutput> finals_;
  int64_t num_prompt_tokens_ = 0;
  int64_t num_completion_tokens_ = 0;
};

}  // namespace

void ServeCompletions(const ServingContext& ctx, const nlohmann::json& body, const nlohmann::ordered_json& ordered_body,
                      const std::shared_ptr<http::Responder>& responder) {
  FieldReader r(body);
  const RequestOptions options = ReadRequestOptions(r, "cmpl");
  ScreenRequestFields(r, Endpoint::kCompletions, options.id);
  const bool stream = r.Bool("stream").value_or(false);
  const std::optional<StreamOptions> stream_options = ReadStreamOptions(r, stream);
  const bool echo = r.Bool("echo").value_or(false);
  const bool add_special_tokens = r.Bool("add_special_tokens").value_or(true);
  std::optional<SamplingRequest> sampling =
      ReadSamplingRequest(r, ordered_body, Endpoint::kCompletions, stream ? OutputKind::kDelta : OutputKind::kFinalOnly, ctx.limits);
  std::optional<std::vector<PromptInput>> prompts;
  if (r.ok()) prompts = ReadPrompts(r, ctx.engine->tokenizer(), add_special_tokens);
  if (!r.ok()) return responder->Send(ErrorResponse(*r.error()));

  // Echoed logprobs cover the prompt too.
  const bool prompt_logprobs = sampling->params.prompt_logprobs.has_value();
  if (echo && sampling->params.logprobs) {
    sampling->params.prompt_logprobs = std::max(sampling->params.prompt_logprobs.value_or(0), *sampling->params.logprobs);
  }
  std::vector<SamplingParams> params;
  std::vector<std::vector<int32_t>> token_ids;
  for (PromptInput& p : *prompts) {
    const size_t given = p.token_ids.size();
    if (std::optional<ApiError> e = TruncatePrompt(p.token_ids, options, sampling->max_tokens, ctx.limits)) {
      return responder->Send(ErrorResponse(*e));
    }
    // Echo shows the prompt the model saw.
    if (p.token_ids.size() != given) {
      StatusOr<std::string> text = ctx.engine->tokenizer().Decode(p.token_ids);
      if (text.ok()) p.text = std::move(*text);
    }
    SamplingRequest per_prompt = *sampling;
    if (std::optional<ApiError> e = FitToContext(per_prompt, static_cast<int64_t>(p.token_ids.size()), ctx.limits)) {
      e->param = "prompt";
      return responder->Send(ErrorResponse(*e));
    }
    params.push_back(per_prompt.params);
    token_ids.push_back(p.token_ids);
  }

  auto job = std::make_shared<CompletionsJob>(ctx, options, std::move(*prompts), sampling->params, echo,
                                              prompt_logprobs, stream, *stream_options, responder);
  StatusOr<std::shared_ptr<GenerationJob>> generation = GenerationJob::Start(
      *ctx.engine, job->id(), std::move(token_ids), params, sampling->priority,
      JobCallbacks{.on_output = [job](size_t k, const RequestOutput& out) { job->OnOutput(k, out); },
                   .on_done = [job] { job->OnDone(); },
                   .on_shutdown = [job] { job->OnShutdown(); }});
  ConnectToClient(generation, stream, *ctx.jobs, responder);
}

}  // namespace pagoda::server
