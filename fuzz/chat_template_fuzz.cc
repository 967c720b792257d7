// libFuzzer target for the Jinja chat-template engine: random templates
// rendered with random contexts, under render limits.
//
// Input: the template source, then optionally a NUL byte and a JSON context.
// A context with a `messages` list goes through ApplyChatTemplate (its
// tools, add_generation_prompt, continue_final_message, bos_token,
// eos_token and kwargs fields too); any other object is rendered as the globals; no or
// broken JSON means a small default conversation.
//
// Invariants: no crash, no sanitizer report, every failure an
// InvalidArgument, and no render slower than kMaxRenderTime: the limits
// below bound the work, so a slow render means work they do not count.
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "pagoda/chat_template/apply_chat_template.h"
#include "pagoda/chat_template/chat_template.h"

namespace {

using Json = nlohmann::ordered_json;
using pagoda::StatusCode;
using pagoda::StatusOr;
using pagoda::chat_template::ChatTemplate;
using pagoda::chat_template::RenderLimits;

// Smaller than the defaults so that runs are fast; the bounds are the same
// code whatever their values.
constexpr RenderLimits kLimits{.max_output_bytes = size_t{1} << 20, .max_work = 200'000};
constexpr auto kMaxRenderTime = std::chrono::seconds(1);

const Json& DefaultContext() {
  static const Json context = Json::parse(R"({
    "messages": [
      {"role": "system", "content": "You are helpful."},
      {"role": "user", "content": "What is the weather in Paris?"},
      {"role": "assistant", "content": null, "tool_calls": [{"id": "call_1", "type": "function",
        "function": {"name": "get_weather", "arguments": {"city": "Paris"}}}]},
      {"role": "tool", "tool_call_id": "call_1", "content": "22 C"},
      {"role": "assistant", "content": "It is 22 C."}
    ],
    "tools": [{"type": "function", "function": {"name": "get_weather", "description": "Weather",
      "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}}],
    "add_generation_prompt": true,
    "bos_token": "<|im_start|>",
    "eos_token": "<|im_end|>"
  })");
  return context;
}

bool BoolField(const Json& context, const char* name) {
  const auto it = context.find(name);
  return it != context.end() && it->is_boolean() && it->get<bool>();
}

StatusOr<std::string> Render(const ChatTemplate& chat_template, const Json& context) {
  const auto messages = context.find("messages");
  if (messages == context.end() || !messages->is_array()) return chat_template.Render(context, kLimits);
  pagoda::chat_template::ChatTemplateInputs inputs;
  inputs.messages = *messages;
  if (context.contains("tools")) inputs.tools = context["tools"];
  inputs.add_generation_prompt = BoolField(context, "add_generation_prompt");
  inputs.continue_final_message = BoolField(context, "continue_final_message");
  for (const char* token : {"bos_token", "eos_token"}) {
    if (context.contains(token)) inputs.special_tokens[token] = context[token];
  }
  if (context.contains("kwargs") && context["kwargs"].is_object()) inputs.kwargs = context["kwargs"];
  return ApplyChatTemplate(chat_template, inputs, kLimits);
}

void CheckError(const pagoda::Status& status, const char* stage) {
  if (status.code() == StatusCode::kInvalidArgument) return;
  std::fprintf(stderr, "chat_template_fuzz: %s failed with %s, not INVALID_ARGUMENT\n", stage,
               status.ToString().c_str());
  __builtin_trap();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const size_t split = input.find('\0');
  Json context = DefaultContext();
  if (split != std::string_view::npos) {
    Json parsed = Json::parse(input.substr(split + 1), nullptr, /*allow_exceptions=*/false);
    if (!parsed.is_discarded() && parsed.is_object()) context = std::move(parsed);
  }
  const auto start = std::chrono::steady_clock::now();
  StatusOr<ChatTemplate> chat_template = ChatTemplate::Parse(std::string(input.substr(0, split)));
  if (!chat_template.ok()) {
    CheckError(chat_template.status(), "Parse");
    return 0;
  }
  const StatusOr<std::string> rendered = Render(*chat_template, context);
  if (!rendered.ok()) CheckError(rendered.status(), "Render");
  if (rendered.ok() && rendered->size() > kLimits.max_output_bytes) {
    std::fprintf(stderr, "chat_template_fuzz: %zu bytes rendered, over the limit\n", rendered->size());
    __builtin_trap();
  }
  const auto elapsed = std::chrono::steady_clock::now() - start;
  if (elapsed > kMaxRenderTime) {
    std::fprintf(stderr, "chat_template_fuzz: parse and render took %lld ms\n",
                 static_cast<long long>(std::chrono::duration_cast<std::chrono::milliseconds>(elapsed).count()));
    __builtin_trap();
  }
  return 0;
}
