#include "pagoda/chat_template/apply_chat_template.h"

#include <array>
#include <string_view>

#include "pagoda/chat_template/py_str.h"

namespace pagoda::chat_template {
namespace {

using Json = nlohmann::ordered_json;

// The names a message's reasoning may come under; templates read the first.
constexpr std::array<std::string_view, 3> kReasoningFields = {"reasoning_content", "thinking", "reasoning"};

// Appended to the text to continue, to find where it ends in the output.
constexpr std::string_view kContinueTag = "CONTINUE_FINAL_MESSAGE_TAG ";

// transformers' _alias_reasoning_fields: reasoning given under any of its
// names is also passed as `thinking` (first) and `reasoning_content` (last).
Json AliasReasoning(const Json& message) {
  const Json* reasoning = nullptr;
  for (std::string_view field : kReasoningFields) {
    auto it = message.find(std::string(field));
    if (it != message.end()) {
      reasoning = &*it;
      break;
    }
  }
  if (reasoning == nullptr) return message;
  Json aliased = Json::object();
  aliased["thinking"] = *reasoning;
  for (const auto& [key, value] : message.items()) aliased[key] = value;
  aliased["reasoning_content"] = *reasoning;
  return aliased;
}

// Tags the final message's text; returns the text before tagging.
StatusOr<std::string> TagFinalMessage(Json* message) {
  auto content = message->find("content");
  if (content == message->end()) {
    return InvalidArgumentError("continue_final_message is set but the final message has no \"content\" to continue!");
  }
  if (content->is_string()) {
    std::string text = content->get<std::string>();
    *content = text + std::string(kContinueTag);
    return text;
  }
  if (content->is_array()) {
    for (auto block = content->rbegin(); block != content->rend(); ++block) {
      if (!block->is_object() || !block->contains("text")) continue;
      Json& text = (*block)["text"];
      if (!text.is_string()) break;
      std::string original = text.get<std::string>();
      text = original + std::string(kContinueTag);
      return original;
    }
    return InvalidArgumentError(
        "continue_final_message is set but we could not find any text to continue in the final message!");
  }
  return InvalidArgumentError("continue_final_message needs the final message's content to be text");
}

}  // namespace

StatusOr<std::string> ApplyChatTemplate(const ChatTemplate& chat_template, const ChatTemplateInputs& inputs,
                                        const RenderLimits& limits) {
  if (!inputs.messages.is_array()) return InvalidArgumentError("messages must be a list");
  if (inputs.messages.empty()) {
    return InvalidArgumentError("Cannot apply chat template to an empty conversation. Provide at least one message.");
  }
  if (inputs.continue_final_message && inputs.add_generation_prompt) {
    return InvalidArgumentError("continue_final_message and add_generation_prompt are not compatible.");
  }
  if (!inputs.special_tokens.is_object() || !inputs.kwargs.is_object()) {
    return InvalidArgumentError("special tokens and chat template kwargs must be JSON objects");
  }
  Json chat = Json::array();
  for (const Json& message : inputs.messages) {
    if (!message.is_object()) return InvalidArgumentError("Chat messages should be dicts");
    Json kept = Json::object();
    for (const auto& [key, value] : message.items()) {
      if (!value.is_null()) kept[key] = value;
    }
    chat.push_back(AliasReasoning(kept));
  }
  std::string final_text;
  if (inputs.continue_final_message) {
    if (chat_template.source().find("content") == std::string::npos) {
      return InvalidArgumentError(
          "continue_final_message is set to \"content\" but this is not an accepted field in the chat_template");
    }
    PAGODA_ASSIGN_OR_RETURN(final_text, TagFinalMessage(&chat.back()));
  }

  Json context = Json::object();
  context["messages"] = std::move(chat);
  context["tools"] = inputs.tools;
  context["documents"] = inputs.documents;
  context["add_generation_prompt"] = inputs.add_generation_prompt;
  for (const Json* extra : {&inputs.special_tokens, &inputs.kwargs}) {
    for (const auto& [key, value] : extra->items()) {
      if (key == "messages" || key == "tools" || key == "documents" || key == "add_generation_prompt") {
        return InvalidArgumentError("chat template kwargs may not set '" + key + "'");
      }
      context[key] = value;
    }
  }
  PAGODA_ASSIGN_OR_RETURN(std::string rendered, chat_template.Render(context, limits));
  if (!inputs.continue_final_message) return rendered;

  const std::string stripped_tag = py::Strip(kContinueTag, nullptr, true, true);
  if (rendered.find(py::Strip(final_text, nullptr, true, true)) == std::string::npos ||
      rendered.find(stripped_tag) == std::string::npos) {
    return InvalidArgumentError(
        "continue_final_message is set but the final message does not appear in the chat after applying the chat "
        "template! This can happen if the chat template deletes portions of the final message.");
  }
  const size_t tag = rendered.rfind(stripped_tag);
  if (rendered.compare(tag, kContinueTag.size(), kContinueTag) == 0) {
    rendered.resize(tag);  // the template kept the tag's trailing space
  } else {
    rendered = py::Strip(std::string_view(rendered).substr(0, tag), nullptr, false, true);
  }
  return rendered;
}

}  // namespace pagoda::chat_template
