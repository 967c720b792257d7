// A chat request's messages rendered into the prompt text with the model's
// chat template, as vLLM renders them: text parts joined, tool call
// arguments given to the template as objects, bos/eos tokens, the client's
// chat_template_kwargs and reasoning_effort as globals, documents for the
// templates that show them, and continue_final_message cutting the text
// after the last message, as transformers does.
#pragma once

#include <optional>
#include <string>

#include "pagoda/chat_template/chat_template.h"
#include "pagoda/server/field_reader.h"
#include "pagoda/tokenizer/tokenizer.h"

namespace pagoda::server {

// Reads messages, tools, documents, add_generation_prompt,
// continue_final_message, chat_template_kwargs and reasoning_effort (a
// template variable, as vLLM passes it) from the request and renders them;
// errors (bad messages, template errors) are recorded in `r`.
// `ordered_body` is the same request parsed keeping key order, which
// templates show (tojson of a tool schema) as Python keeps it. `tools`,
// when given, are the tools the template sees instead of the request's
// (the legacy `functions` as tools).
std::optional<std::string> RenderChatPrompt(FieldReader& r, const nlohmann::ordered_json& ordered_body,
                                            const chat_template::ChatTemplate& chat_template,
                                            const tokenizer::Tokenizer& tokenizer,
                                            const nlohmann::ordered_json* tools = nullptr);

// What chat's echo puts before the answer, as vLLM does: the last
// message's text when it has the answer's role (the assistant's, whose
// message the model continues), else nothing.
std::string EchoPrefix(const nlohmann::ordered_json& messages);

}  // namespace pagoda::server
