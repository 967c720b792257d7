// Chat templates: the Jinja templates models ship (GGUF's
// tokenizer.chat_template, or a --chat-template file) that turn a
// conversation into the prompt text, rendered as Hugging Face transformers
// renders them (jinja2's ImmutableSandboxedEnvironment with trim_blocks,
// lstrip_blocks and loop controls, plus transformers' tojson,
// raise_exception and strftime_now).
//
// The engine implements the part of Jinja that chat templates use; README.md
// in this directory lists what it covers and what it leaves out.
#pragma once

#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "pagoda/base/status.h"
#include "pagoda/chat_template/render_limits.h"

namespace pagoda::chat_template {

class ChatTemplate {
 public:
  // Parses once. Syntax errors, and filters or tests that do not exist, are
  // InvalidArgument with the line and column.
  static StatusOr<ChatTemplate> Parse(std::string source);

  // Renders with `context`, a JSON object, as the template's globals:
  // messages, tools, add_generation_prompt, bos_token, eos_token and any
  // chat_template_kwargs (ApplyChatTemplate assembles them as transformers
  // does). Pass ordered_json to keep the key order of tool schemas and
  // messages: Python keeps insertion order, and `tojson` and `items()` show
  // it, while nlohmann::json sorts keys.
  //
  // raise_exception(message) in the template comes back as InvalidArgument
  // with exactly that message; other failures (undefined values used,
  // wrong types, limits) as InvalidArgument with the position. Safe to call
  // from many threads at once.
  StatusOr<std::string> Render(const nlohmann::ordered_json& context, const RenderLimits& limits = {}) const;
  StatusOr<std::string> Render(const nlohmann::json& context, const RenderLimits& limits = {}) const;

  // The source as given to Parse.
  const std::string& source() const;

 private:
  struct Compiled;
  explicit ChatTemplate(std::shared_ptr<const Compiled> compiled) : compiled_(std::move(compiled)) {}
  template <typename Json>
  StatusOr<std::string> RenderJson(const Json& context, const RenderLimits& limits) const;

  std::shared_ptr<const Compiled> compiled_;
};

}  // namespace pagoda::chat_template
