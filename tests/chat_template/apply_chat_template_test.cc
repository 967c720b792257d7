// The preparation transformers' apply_chat_template does around the
// template: null keys dropped, reasoning aliased, special tokens and kwargs
// merged, continue_final_message.
#include "pagoda/chat_template/apply_chat_template.h"

#include <gtest/gtest.h>

namespace pagoda::chat_template {
namespace {

using Json = nlohmann::ordered_json;

std::string Apply(const std::string& source, const ChatTemplateInputs& inputs) {
  StatusOr<ChatTemplate> t = ChatTemplate::Parse(source);
  if (!t.ok()) return "PARSE ERROR: " + t.status().message();
  StatusOr<std::string> out = ApplyChatTemplate(*t, inputs);
  return out.ok() ? *out : "ERROR: " + out.status().message();
}

ChatTemplateInputs Messages(const char* json) {
  ChatTemplateInputs inputs;
  inputs.messages = Json::parse(json);
  return inputs;
}

constexpr char kChatMl[] =
    "{% for m in messages %}<|im_start|>{{ m.role }}\n{{ m.content }}<|im_end|>\n{% endfor %}"
    "{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}";

TEST(ApplyChatTemplate, NullKeysAreDropped) {
  ChatTemplateInputs inputs = Messages(R"([{"role": "assistant", "content": null, "tool_calls": [1]}])");
  EXPECT_EQ(Apply("{{ messages[0].content is defined }} {{ messages[0] | tojson }}", inputs),
            R"(False {"role": "assistant", "tool_calls": [1]})");
}

TEST(ApplyChatTemplate, ReasoningIsAliased) {
  // transformers' order: thinking first, reasoning_content last.
  ChatTemplateInputs inputs = Messages(R"([{"role": "assistant", "content": "a", "reasoning": "r"}])");
  EXPECT_EQ(Apply("{{ messages[0] | tojson }}", inputs),
            R"({"thinking": "r", "role": "assistant", "content": "a", "reasoning": "r", "reasoning_content": "r"})");
}

TEST(ApplyChatTemplate, ContextVariables) {
  ChatTemplateInputs inputs = Messages(R"([{"role": "user", "content": "hi"}])");
  inputs.special_tokens = Json{{"bos_token", "<s>"}, {"eos_token", "</s>"}};
  inputs.kwargs = Json{{"eos_token", "<eos>"}, {"enable_thinking", false}};
  EXPECT_EQ(Apply("{{ bos_token }}{{ eos_token }}{{ enable_thinking }}{{ tools is none }}{{ documents is none }}"
                  "{{ add_generation_prompt }}",
                  inputs),
            "<s><eos>FalseTrueTrueFalse");
  inputs.kwargs = Json{{"messages", 1}};
  EXPECT_EQ(Apply("x", inputs), "ERROR: chat template kwargs may not set 'messages'");
}

TEST(ApplyChatTemplate, AddGenerationPrompt) {
  ChatTemplateInputs inputs = Messages(R"([{"role": "user", "content": "hi"}])");
  inputs.add_generation_prompt = true;
  EXPECT_EQ(Apply(kChatMl, inputs), "<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\n");
}

TEST(ApplyChatTemplate, ContinueFinalMessage) {
  ChatTemplateInputs inputs =
      Messages(R"([{"role": "user", "content": "hi"}, {"role": "assistant", "content": "The answer is "}])");
  inputs.continue_final_message = true;
  EXPECT_EQ(Apply(kChatMl, inputs), "<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\nThe answer is ");
  // A template that trims the content loses the trailing space too.
  EXPECT_EQ(Apply("{% for m in messages %}[{{ m.content | trim }}]{% endfor %}", inputs), "[hi][The answer is");
  // Text parts: the last one with text continues.
  inputs.messages[1]["content"] = Json::parse(R"([{"type": "text", "text": "Part"}, {"type": "image"}])");
  EXPECT_EQ(Apply("{% for m in messages[1].content %}{{ m.text }}{% endfor %}|end", inputs), "Part");
  inputs.add_generation_prompt = true;
  EXPECT_EQ(Apply(kChatMl, inputs).rfind("ERROR: continue_final_message and add_generation_prompt", 0), 0u);
  inputs.add_generation_prompt = false;
  inputs.messages[1]["content"] = "dropped";
  EXPECT_EQ(Apply("{{ messages[0].content }}", inputs).rfind("ERROR: continue_final_message is set but the final", 0),
            0u);
}

TEST(ApplyChatTemplate, RefusedInputs) {
  EXPECT_EQ(Apply(kChatMl, Messages("[]")),
            "ERROR: Cannot apply chat template to an empty conversation. Provide at least one message.");
  EXPECT_EQ(Apply(kChatMl, Messages("[1]")), "ERROR: Chat messages should be dicts");
}

}  // namespace
}  // namespace pagoda::chat_template
