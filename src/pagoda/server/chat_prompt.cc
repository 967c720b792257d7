#include "pagoda/server/chat_prompt.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <array>

#include "pagoda/chat_template/apply_chat_template.h"
#include "pagoda/server/bounded_json.h"

namespace pagoda::server {
namespace {

constexpr std::array<std::string_view, 5> kRoles = {"system", "user", "assistant", "tool", "developer"};

// String content, or a list of text parts joined by newlines (vLLM's
// "string" content format); as in vLLM, missing content (an assistant turn
// of tool calls) is an empty string. nullopt: another shape.
std::optional<std::string> ContentText(const nlohmann::ordered_json& content) {
  if (content.is_null()) return "";
  if (content.is_string()) return content.get<std::string>();
  if (!content.is_array()) return std::nullopt;
  std::string text;
  for (const nlohmann::ordered_json& part : content) {
    const bool text_part = part.is_object() && part.contains("type") && part["type"] == "text" &&
                           part.contains("text") && part["text"].is_string();
    if (!text_part) return std::nullopt;
    if (!text.empty()) text += '\n';
    text += part["text"].get<std::string>();
  }
  return text;
}

std::optional<nlohmann::ordered_json> ReadContent(FieldReader& r, const nlohmann::ordered_json& content, size_t i) {
  if (std::optional<std::string> text = ContentText(content)) return std::move(*text);
  const std::string field = fmt::format("messages[{}].content", i);
  if (!content.is_array()) {
    r.Fail(field, fmt::format("'{}' must be a string or a list of content parts", field));
  } else {
    r.Fail(field, fmt::format("'{}' may only hold text parts ({{\"type\": \"text\", \"text\": ...}})", field));
  }
  return std::nullopt;
}

// OpenAI's reasoning efforts (vLLM takes low, medium and high); the
// template decides what each means.
constexpr std::array<std::string_view, 7> kReasoningEfforts = {"none", "minimal", "low", "medium",
                                                               "high", "xhigh", "max"};

// Tool calls as OpenAI sends them carry their arguments as a JSON string;
// templates index into them, so vLLM parses them into objects.
nlohmann::ordered_json ParseToolCalls(const nlohmann::ordered_json& calls) {
  nlohmann::ordered_json out = calls;
  for (nlohmann::ordered_json& call : out) {
    if (!call.is_object() || !call.contains("function")) continue;
    nlohmann::ordered_json& function = call["function"];
    if (function.is_object() && function.contains("arguments") && function["arguments"].is_string()) {
      StatusOr<nlohmann::ordered_json> parsed = ParseBoundedJson(function["arguments"].get<std::string>());
      if (parsed.ok()) function["arguments"] = std::move(*parsed);
    }
  }
  return out;
}

// `messages`: a non-empty array.
std::optional<nlohmann::ordered_json> ReadMessages(FieldReader& r, const nlohmann::ordered_json& messages) {
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  for (size_t i = 0; i < messages.size(); ++i) {
    const nlohmann::ordered_json& m = messages[i];
    const std::string field = fmt::format("messages[{}]", i);
    if (!m.is_object() || !m.contains("role") || !m["role"].is_string()) {
      r.Fail(field, fmt::format("'{}' must be an object with a string 'role'", field));
      return std::nullopt;
    }
    const std::string role = m["role"].get<std::string>();
    if (std::find(kRoles.begin(), kRoles.end(), role) == kRoles.end()) {
      r.Fail(field + ".role", fmt::format("'{}.role' must be one of system, user, assistant, tool, developer; got '{}'",
                                          field, role));
      return std::nullopt;
    }
    nlohmann::ordered_json message = m;  // other fields (name, tool_call_id, ...) pass through
    std::optional<nlohmann::ordered_json> content = ReadContent(r, m.value("content", nlohmann::ordered_json()), i);
    if (!content) return std::nullopt;
    message["content"] = std::move(*content);
    if (m.contains("tool_calls") && m["tool_calls"].is_array()) message["tool_calls"] = ParseToolCalls(m["tool_calls"]);
    out.push_back(std::move(message));
  }
  return out;
}

std::string TokenText(const tokenizer::Tokenizer& tokenizer, std::optional<int32_t> id) {
  return id && tokenizer.IsValidId(*id) ? tokenizer.TokenText(*id) : "";
}

}  // namespace

std::optional<std::string> RenderChatPrompt(FieldReader& r, const nlohmann::ordered_json& ordered_body,
                                            const chat_template::ChatTemplate& chat_template,
                                            const tokenizer::Tokenizer& tokenizer,
                                            const nlohmann::ordered_json* tools) {
  std::optional<nlohmann::ordered_json> messages;
  if (!r.Raw("messages").is_array() || r.Raw("messages").empty()) {
    r.Fail("messages", "'messages' must be a non-empty list");
  } else {
    messages = ReadMessages(r, ordered_body.at("messages"));
  }
  chat_template::ChatTemplateInputs inputs;
  inputs.add_generation_prompt = r.Bool("add_generation_prompt").value_or(true);
  inputs.continue_final_message = r.Bool("continue_final_message").value_or(false);
  if (r.Has("tools") && !r.Raw("tools").is_array()) r.Fail("tools", "'tools' must be a list");
  if (r.Has("chat_template_kwargs") && !r.Raw("chat_template_kwargs").is_object()) {
    r.Fail("chat_template_kwargs", "'chat_template_kwargs' must be an object");
  }
  const nlohmann::json& documents = r.Raw("documents");
  if (!documents.is_null() &&
      (!documents.is_array() || !std::all_of(documents.begin(), documents.end(), [](const nlohmann::json& d) {
        return d.is_object();
      }))) {
    r.Fail("documents", "'documents' must be a list of objects");
  }
  const std::optional<std::string> effort = r.String("reasoning_effort");
  if (effort && std::find(kReasoningEfforts.begin(), kReasoningEfforts.end(), *effort) == kReasoningEfforts.end()) {
    r.Fail("reasoning_effort", fmt::format("'reasoning_effort' must be one of {}, got '{}'",
                                           fmt::join(kReasoningEfforts, ", "), *effort));
  }
  if (inputs.add_generation_prompt && inputs.continue_final_message) {
    r.Fail("continue_final_message", "Cannot set both 'continue_final_message' and 'add_generation_prompt' to true");
  }
  if (!r.ok()) return std::nullopt;

  inputs.messages = std::move(*messages);
  if (tools != nullptr) {
    if (!tools->is_null()) inputs.tools = *tools;
  } else if (r.Has("tools")) {
    inputs.tools = ordered_body.at("tools");
  }
  if (r.Has("chat_template_kwargs")) inputs.kwargs = ordered_body.at("chat_template_kwargs");
  // As vLLM merges them: the request's field over a kwarg of the same name.
  if (effort) inputs.kwargs["reasoning_effort"] = *effort;
  // RAG documents, which templates that support them show the model.
  if (!documents.is_null()) inputs.documents = ordered_body.at("documents");
  inputs.special_tokens = {{"bos_token", TokenText(tokenizer, tokenizer.bos_id())},
                           {"eos_token", TokenText(tokenizer, tokenizer.eos_id())}};
  StatusOr<std::string> rendered = chat_template::ApplyChatTemplate(chat_template, inputs);
  if (!rendered.ok()) {
    r.Fail("messages", fmt::format("the chat template failed: {}", rendered.status().message()));
    return std::nullopt;
  }
  return std::move(*rendered);
}

std::string EchoPrefix(const nlohmann::ordered_json& messages) {
  if (!messages.is_array() || messages.empty()) return "";
  const nlohmann::ordered_json& last = messages.back();
  if (!last.is_object() || last.value("role", "") != "assistant") return "";
  return ContentText(last.value("content", nlohmann::ordered_json())).value_or("");
}

}  // namespace pagoda::server
