// The default model's own chat template, read from its GGUF metadata, is the
// SmolLM2 fixture template and renders as transformers does.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "pagoda/chat_template/apply_chat_template.h"
#include "pagoda/chat_template/chat_template.h"
#include "pagoda/formats/gguf/gguf_file.h"

namespace pagoda::chat_template {
namespace {

using Json = nlohmann::ordered_json;

constexpr char kTemplate[] = "HuggingFaceTB-SmolLM2-135M-Instruct.jinja";

std::string ReadFixture(const std::string& name) {
  std::ifstream in(std::string(PAGODA_FIXTURES_DIR) + "/chat_templates/" + name, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST(GgufChatTemplate, DefaultModelTemplateMatchesTransformers) {
  if (!std::filesystem::exists(PAGODA_TEST_MODEL)) GTEST_SKIP() << "model not installed: " << PAGODA_TEST_MODEL;
  StatusOr<std::unique_ptr<gguf::GgufFile>> file = gguf::GgufFile::Open(PAGODA_TEST_MODEL);
  ASSERT_TRUE(file.ok()) << file.status().ToString();
  StatusOr<std::string> source = (*file)->GetString("tokenizer.chat_template");
  ASSERT_TRUE(source.ok()) << source.status().ToString();
  EXPECT_EQ(*source, ReadFixture(std::string("templates/") + kTemplate));

  StatusOr<ChatTemplate> chat_template = ChatTemplate::Parse(*source);
  ASSERT_TRUE(chat_template.ok()) << chat_template.status().ToString();
  int compared = 0;
  const Json cases = Json::parse(ReadFixture("cases.json"));
  for (const Json& c : cases["cases"]) {
    if (c["template"].get<std::string>() != kTemplate || !c.contains("expected")) continue;
    SCOPED_TRACE(c["name"].get<std::string>());
    ChatTemplateInputs inputs;
    inputs.messages = c["messages"];
    inputs.tools = c["tools"];
    inputs.add_generation_prompt = c["add_generation_prompt"].get<bool>();
    inputs.continue_final_message = c["continue_final_message"].get<bool>();
    inputs.special_tokens = c["special_tokens"];
    inputs.kwargs = c["kwargs"];
    StatusOr<std::string> rendered = ApplyChatTemplate(*chat_template, inputs);
    ASSERT_TRUE(rendered.ok()) << rendered.status().ToString();
    EXPECT_EQ(*rendered, c["expected"].get<std::string>());
    ++compared;
  }
  EXPECT_GE(compared, 8);
}

}  // namespace
}  // namespace pagoda::chat_template
