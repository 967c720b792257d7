// Every case of tests/fixtures/chat_templates/cases.json: real model
// templates rendered by Hugging Face transformers (make_reference.py), which
// Pagoda must reproduce exactly, errors included.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "pagoda/chat_template/apply_chat_template.h"
#include "pagoda/chat_template/chat_template.h"

namespace pagoda::chat_template {
namespace {

using Json = nlohmann::ordered_json;

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    ADD_FAILURE() << "cannot read " << path;
    return {};
  }
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

const std::string kDir = std::string(PAGODA_FIXTURES_DIR) + "/chat_templates/";

const Json& Cases() {
  static const Json cases = Json::parse(ReadFile(kDir + "cases.json"))["cases"];
  return cases;
}

// Each template parsed once.
const ChatTemplate& Template(const std::string& file) {
  static std::map<std::string, ChatTemplate> parsed;
  auto it = parsed.find(file);
  if (it == parsed.end()) {
    StatusOr<ChatTemplate> t = ChatTemplate::Parse(ReadFile(kDir + "templates/" + file));
    if (!t.ok()) {
      ADD_FAILURE() << file << ": " << t.status().message();
      t = ChatTemplate::Parse("");
    }
    it = parsed.emplace(file, std::move(*t)).first;
  }
  return it->second;
}

ChatTemplateInputs Inputs(const Json& c) {
  ChatTemplateInputs inputs;
  inputs.messages = c["messages"];
  inputs.tools = c["tools"];
  inputs.add_generation_prompt = c["add_generation_prompt"].get<bool>();
  inputs.continue_final_message = c["continue_final_message"].get<bool>();
  inputs.special_tokens = c["special_tokens"];
  inputs.kwargs = c["kwargs"];
  return inputs;
}

TEST(ChatTemplateFixtures, EveryCaseMatchesTransformers) {
  ASSERT_GE(Cases().size(), 100u);
  int errors_expected = 0;
  for (const Json& c : Cases()) {
    const std::string name = c["name"].get<std::string>();
    SCOPED_TRACE(name);
    StatusOr<std::string> rendered = ApplyChatTemplate(Template(c["template"].get<std::string>()), Inputs(c));
    if (c.contains("expected")) {
      ASSERT_TRUE(rendered.ok()) << rendered.status().message();
      EXPECT_EQ(*rendered, c["expected"].get<std::string>());
      continue;
    }
    ++errors_expected;
    ASSERT_FALSE(rendered.ok()) << "rendered: " << *rendered;
    const std::string type = c["error"]["type"].get<std::string>();
    const std::string message = c["error"]["message"].get<std::string>();
    if (type == "TemplateError") {
      // raise_exception(): the template's own message, verbatim.
      EXPECT_EQ(rendered.status().message(), message);
    } else if (type == "UndefinedError" || type == "TypeError") {
      EXPECT_NE(rendered.status().message().find(message), std::string::npos) << rendered.status().message();
    }
  }
  EXPECT_GE(errors_expected, 10);
}

// A server renders one parsed template from many threads at once.
TEST(ChatTemplateFixtures, OneTemplateRendersOnManyThreadsAtOnce) {
  std::vector<const Json*> cases;
  for (const Json& c : Cases()) {
    if (c["template"] == Json("Qwen3.5-4B.jinja") && c.contains("expected")) cases.push_back(&c);
  }
  ASSERT_FALSE(cases.empty());
  const ChatTemplate& chat_template = Template("Qwen3.5-4B.jinja");
  std::vector<int> mismatches(4, 0);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int round = 0; round < 20; ++round) {
        for (const Json* c : cases) {
          StatusOr<std::string> rendered = ApplyChatTemplate(chat_template, Inputs(*c));
          if (!rendered.ok() || *rendered != (*c)["expected"].get<std::string>()) ++mismatches[t];
        }
      }
    });
  }
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(mismatches, std::vector<int>(4, 0));
}

}  // namespace
}  // namespace pagoda::chat_template
