#include "pagoda/server/chat_completions.h"

#include "pagoda/server/chat_output.h"
#include "pagoda/server/chat_prompt.h"
#include "pagoda/server/generation_job.h"
#include "pagoda/server/logprobs_json.h"
#include "pagoda/server/request_fields.h"
#include "pagoda/server/request_options.h"
#include "pagoda/server/responses.h"
#include "pagoda/server/stream_options.h"
#include "pagoda/server/tool_request.h"

namespace pagoda::server {
namespace {

class ChatJob {
 public:
  // `echo`: what the answer's content starts with (chat's echo).
  ChatJob(const ServingContext& ctx, const RequestOptions& options, const std::vector<int32_t>& prompt_token_ids,
          std::string echo, const SamplingParams& params, bool stream, StreamOptions stream_options,
          ChatOutputParser parser, std::shared_ptr<http::Responder> responder)
      : id_(options.id),
        created_(UnixSeconds()),
        model_(ctx.model_name),
        num_prompt_tokens_(static_cast<int64_t>(prompt_token_ids.size())),
        return_token_ids_(options.return_token_ids),
        tokens_as_ids_(options.tokens_as_ids),
        prompt_token_ids_(options.return_token_ids ? prompt_token_ids : std::vector<int32_t>()),
        echo_(std::move(echo)),
        logprobs_(params.logprobs),
        stream_(stream),
        stream_options_(stream_options),
        parser_(std::move(parser)),
        responder_(std::move(responder)),
        role_sent_(static_cast<size_t>(params.n), false),
        finished_(static_cast<size_t>(params.n), false),
        texts_(static_cast<size_t>(params.n)),
        deltas_(static_cast<size_t>(params.n)) {}

  const std::string& id() const { return id_; }

  void OnOutput(const RequestOutput& out) {
    if (!stream_) {
      if (out.finished) final_ = out;
      return;
    }
    for (const CompletionOutput& c : out.outputs) {
      num_completion_tokens_ += static_cast<int64_t>(c.token_ids.size());
      const size_t index = static_cast<size_t>(c.index);
      // Each choice opens with the assistant's role, as OpenAI streams it.
      if (index < role_sent_.size() && !role_sent_[index]) {
        role_sent_[index] = true;
        WriteChunk({{"index", index},
                    {"delta", {{"role", "assistant"}, {"content", ""}}},
                    {"logprobs", nullptr},
                    {"finish_reason", nullptr}},
                   /*first=*/true);
        if (!echo_.empty()) {
          WriteChunk({{"index", index},
                      {"delta", {{"content", echo_}}},
                      {"logprobs", nullptr},
                      {"finish_reason", nullptr}});
        }
      }
      if (c.text.empty() && c.token_ids.empty() && !c.finish_reason) continue;
      if (index >= texts_.size()) continue;
      texts_[index] += c.text;
      nlohmann::json delta = deltas_[index].Next(parser_.Parse(texts_[index], c.finish_reason.has_value()));
      const bool called = !deltas_[index].call_ids().empty();
      if (parser_.legacy_functions()) delta = LegacyFunctionDelta(std::move(delta));
      // A token that completes no text yet still gets its chunk (its
      // logprobs), with empty content, as before any parser.
      if (delta.empty() && !c.finish_reason) delta["content"] = "";
      nlohmann::json choice = {{"index", index},
                               {"delta", std::move(delta)},
                               {"logprobs", Logprobs(c)},
                               {"finish_reason", ChoiceFinishReason(c.finish_reason, called)}};
      if (c.finish_reason) {
        choice["stop_reason"] = StopReasonJson(c.stop_reason);
        if (index < finished_.size()) finished_[index] = true;
      }
      if (return_token_ids_) choice["token_ids"] = c.token_ids;
      WriteChunk(std::move(choice));
    }
  }

  void OnDone() {
    if (!stream_) {
      nlohmann::json body = Envelope("chat.completion");
      body["choices"] = nlohmann::json::array();
      for (const CompletionOutput& c : final_.outputs) {
        num_completion_tokens_ += static_cast<int64_t>(c.token_ids.size());
        const ChatOutputParts parts = parser_.Parse(c.text, /*final=*/true);
        nlohmann::json choice = {{"index", c.index},
                                 {"message", Message(parts)},
                                 {"logprobs", Logprobs(c)},
                                 {"finish_reason", ChoiceFinishReason(c.finish_reason, !parts.calls.empty())},
                                 {"stop_reason", StopReasonJson(c.stop_reason)}};
        if (return_token_ids_) choice["token_ids"] = c.token_ids;
        body["choices"].push_back(std::move(choice));
      }
      if (return_token_ids_) body["prompt_token_ids"] = prompt_token_ids_;
      body["usage"] = UsageJson(num_prompt_tokens_, num_completion_tokens_);
      body["prompt_logprobs"] = final_.prompt_logprobs ? PromptLogprobsJson(*final_.prompt_logprobs) : nullptr;
      responder_->Send(JsonResponse(200, body));
      return;
    }
    EndStream();
  }

  // The server is shutting down: every unfinished choice ends as aborted.
  void OnShutdown() {
    if (!stream_) return responder_->Send(ErrorResponse(ShutdownError()));
    for (size_t index = 0; index < finished_.size(); ++index) {
      if (finished_[index]) continue;
      WriteChunk({{"index", index},
                  {"delta", nlohmann::json::object()},
                  {"logprobs", nullptr},
                  {"finish_reason", FinishReasonJson(FinishReason::kAbort)},
                  {"stop_reason", nullptr}});
    }
    EndStream();
  }

 private:
  nlohmann::json Envelope(const char* object) const {
    return {{"id", id_}, {"object", object}, {"created", created_}, {"model", model_}};
  }

  void EndStream() {
    if (stream_options_.include_usage) {
      nlohmann::json chunk = Envelope("chat.completion.chunk");
      chunk["choices"] = nlohmann::json::array();
      chunk["usage"] = UsageJson(num_prompt_tokens_, num_completion_tokens_);
      responder_->Write(SseEvent(chunk));
    }
    responder_->Write(std::string(kSseDone));
    responder_->End();
  }

  // A choice's first chunk carries the prompt's ids, when asked, as vLLM's.
  void WriteChunk(nlohmann::json choice, bool first = false) {
    nlohmann::json chunk = Envelope("chat.completion.chunk");
    chunk["choices"] = nlohmann::json::array({std::move(choice)});
    if (first && return_token_ids_) chunk["prompt_token_ids"] = prompt_token_ids_;
    if (stream_options_.include_usage && stream_options_.continuous_usage_stats) {
      chunk["usage"] = UsageJson(num_prompt_tokens_, num_completion_tokens_);
    }
    responder_->Write(SseEvent(chunk));
  }

  // The assistant's message: reasoning (with a reasoning parser), content
  // (null when only calls were made, as OpenAI's) and the calls, or the
  // legacy function_call.
  nlohmann::json Message(const ChatOutputParts& parts) const {
    nlohmann::json message = {{"role", "assistant"}};
    if (parser_.has_reasoning_parser()) {
      message["reasoning_content"] = parts.reasoning ? nlohmann::json(*parts.reasoning) : nlohmann::json(nullptr);
    }
    // No answer beside calls or reasoning: null content, as OpenAI and vLLM send.
    const bool no_answer = parts.content.empty() && (!parts.calls.empty() || (parts.reasoning && !parts.reasoning->empty()));
    message["content"] = no_answer ? nlohmann::json(nullptr) : nlohmann::json(parts.content);
    if (!echo_.empty()) message["content"] = echo_ + parts.content;
    nlohmann::json calls = nlohmann::json::array();
    for (const ParsedToolCall& call : parts.calls) calls.push_back(ToolCallJson(call, NewToolCallId()));
    if (parser_.legacy_functions()) {
      if (!parts.calls.empty()) message["function_call"] = calls[0]["function"];
    } else {
      message["tool_calls"] = std::move(calls);
    }
    return message;
  }

  // "tool_calls" (legacy: "function_call") when a tools answer that made
  // calls ended by itself; a cut-off answer keeps its reason.
  nlohmann::json ChoiceFinishReason(const std::optional<FinishReason>& reason, bool called) const {
    if (reason == FinishReason::kStop && called && parser_.calls_finish()) {
      return parser_.legacy_functions() ? "function_call" : "tool_calls";
    }
    return FinishReasonJson(reason);
  }

  // Legacy clients stream one call as delta.function_call.
  static nlohmann::json LegacyFunctionDelta(nlohmann::json delta) {
    if (!delta.contains("tool_calls")) return delta;
    // ChatDeltas sends each call at most once per delta.
    nlohmann::json function = nlohmann::json::object();
    for (const nlohmann::json& call : delta["tool_calls"]) {
      if (call["index"] == 0) function = call["function"];
    }
    delta.erase("tool_calls");
    if (!function.empty()) delta["function_call"] = std::move(function);
    return delta;
  }

  nlohmann::json Logprobs(const CompletionOutput& c) const {
    if (!logprobs_ || !c.logprobs) return nullptr;
    return ChatLogprobs(*c.logprobs, *logprobs_, tokens_as_ids_);
  }

  const std::string id_;
  const int64_t created_;
  const std::string model_;
  const int64_t num_prompt_tokens_;
  const bool return_token_ids_;
  const bool tokens_as_ids_;
  const std::vector<int32_t> prompt_token_ids_;  // when returned
  const std::string echo_;
  const std::optional<int32_t> logprobs_;
  const bool stream_;
  const StreamOptions stream_options_;
  const ChatOutputParser parser_;
  const std::shared_ptr<http::Responder> responder_;
  std::vector<bool> role_sent_;
  std::vector<bool> finished_;  // streamed choices whose finish_reason was sent
  std::vector<std::string> texts_;  // each streamed choice's text so far
  std::vector<ChatDeltas> deltas_;
  RequestOutput final_;
  int64_t num_completion_tokens_ = 0;
};

}  // namespace

void ServeChatCompletions(const ServingContext& ctx, const nlohmann::json& body,
                          const nlohmann::ordered_json& ordered_body, const std::shared_ptr<http::Responder>& responder) {
  FieldReader r(body);
  const RequestOptions options = ReadRequestOptions(r, "chatcmpl");
  ScreenRequestFields(r, Endpoint::kChat, options.id);
  if (ctx.chat_template == nullptr) {
    return responder->Send(ErrorResponse(BadRequest(
        "the model has no chat template; start the server with --chat-template FILE to use chat completions")));
  }
  const bool stream = r.Bool("stream").value_or(false);
  const std::optional<StreamOptions> stream_options = ReadStreamOptions(r, stream);
  // The template adds the special tokens it wants.
  const bool add_special_tokens = r.Bool("add_special_tokens").value_or(false);
  const bool echo = r.Bool("echo").value_or(false);
  const bool include_reasoning = r.Bool("include_reasoning").value_or(true);
  std::optional<SamplingRequest> sampling =
      ReadSamplingRequest(r, ordered_body, Endpoint::kChat, stream ? OutputKind::kDelta : OutputKind::kFinalOnly, ctx.limits);
  std::optional<ToolRequest> tools;
  if (r.ok()) tools = ReadToolRequest(r, ordered_body, ctx.auto_tool_parser != nullptr, sampling->params);
  std::optional<std::string> prompt;
  if (r.ok()) prompt = RenderChatPrompt(r, ordered_body, *ctx.chat_template, ctx.engine->tokenizer(), &tools->tools);
  if (!r.ok()) return responder->Send(ErrorResponse(*r.error()));

  std::vector<int32_t> token_ids = ctx.engine->tokenizer().Encode(
      *prompt, tokenizer::EncodeOptions{.add_special = add_special_tokens, .parse_special = true});
  if (token_ids.empty()) return responder->Send(ErrorResponse(BadRequest("the rendered prompt is empty", "messages")));
  if (std::optional<ApiError> e = TruncatePrompt(token_ids, options, sampling->max_tokens, ctx.limits)) {
    return responder->Send(ErrorResponse(*e));
  }
  if (std::optional<ApiError> e = FitToContext(*sampling, static_cast<int64_t>(token_ids.size()), ctx.limits)) {
    return responder->Send(ErrorResponse(*e));
  }
  // Formats whose markup is special tokens need them in the text.
  if (tools->choice == ToolChoice::kAuto && ctx.auto_tool_parser->NeedsSpecialTokens()) {
    sampling->params.skip_special_tokens = false;
  }
  // Echo with logprobs returns the prompt's too, as vLLM's.
  if (echo && !stream && sampling->params.logprobs && !sampling->params.prompt_logprobs) {
    sampling->params.prompt_logprobs = sampling->params.logprobs;
  }
  auto job = std::make_shared<ChatJob>(ctx, options, token_ids, echo ? EchoPrefix(ordered_body.at("messages")) : "",
                                       sampling->params, stream, *stream_options,
                                       ChatOutputParser(ctx.reasoning_parser, ctx.auto_tool_parser, *tools,
                                                        ReasoningClosedIn(*prompt), include_reasoning),
                                       responder);
  StatusOr<std::shared_ptr<GenerationJob>> generation = GenerationJob::Start(
      *ctx.engine, job->id(), {std::move(token_ids)}, {sampling->params}, sampling->priority,
      JobCallbacks{.on_output = [job](size_t, const RequestOutput& out) { job->OnOutput(out); },
                   .on_done = [job] { job->OnDone(); },
                   .on_shutdown = [job] { job->OnShutdown(); }});
  ConnectToClient(generation, stream, *ctx.jobs, responder);
}

}  // namespace pagoda::server
