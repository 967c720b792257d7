// What transformers' tokenizer.apply_chat_template(messages, tools=...,
// tokenize=False, ...) does around rendering the template, so that a prompt
// built here matches the one Hugging Face builds for the same request.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "pagoda/base/status.h"
#include "pagoda/chat_template/chat_template.h"

namespace pagoda::chat_template {

struct ChatTemplateInputs {
  // OpenAI-style messages. Keys whose value is null are dropped first (a
  // template sees `content` as undefined, not None, on a tool-call message).
  nlohmann::ordered_json messages = nlohmann::ordered_json::array();
  // Tool schemas; null when the request has none (templates test `tools is
  // not none`, so null and [] differ).
  nlohmann::ordered_json tools;
  nlohmann::ordered_json documents;
  bool add_generation_prompt = false;
  // Render the last (assistant) message open-ended, for the model to
  // continue: the text after its content is cut off.
  bool continue_final_message = false;
  // The tokenizer's special tokens: {"bos_token": "<s>", "eos_token": ...}.
  nlohmann::ordered_json special_tokens = nlohmann::ordered_json::object();
  // chat_template_kwargs; they override special tokens of the same name.
  nlohmann::ordered_json kwargs = nlohmann::ordered_json::object();
};

// InvalidArgument for inputs transformers refuses and for template errors
// (see ChatTemplate::Render).
StatusOr<std::string> ApplyChatTemplate(const ChatTemplate& chat_template, const ChatTemplateInputs& inputs,
                                        const RenderLimits& limits = {});

}  // namespace pagoda::chat_template
