// The tool-call and reasoning parsers on each format's examples, and the
// streaming contract: parsing every prefix of an output and sending the
// growth (ChatDeltas) rebuilds exactly what parsing the whole output gives.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "pagoda/server/chat_output.h"
#include "pagoda/server/json_tool_calls.h"
#include "pagoda/server/reasoning_parser.h"
#include "pagoda/server/tool_call_parser.h"

namespace pagoda::server {
namespace {

std::unique_ptr<ToolCallParser> Parser(const std::string& name) {
  auto parser = MakeToolCallParser(name);
  EXPECT_TRUE(parser.ok()) << parser.status().ToString();
  return std::move(*parser);
}

// Calls compared by name and by arguments as JSON values.
void ExpectCalls(const ParsedToolOutput& out, const std::vector<std::pair<std::string, std::string>>& expected,
                 const std::string& context) {
  ASSERT_EQ(out.calls.size(), expected.size()) << context;
  for (size_t i = 0; i < expected.size(); ++i) {
    EXPECT_EQ(out.calls[i].name, expected[i].first) << context;
    EXPECT_EQ(nlohmann::json::parse(out.calls[i].arguments), nlohmann::json::parse(expected[i].second)) << context;
  }
}

struct Example {
  std::string parser;
  std::string text;
  std::string content;
  std::vector<std::pair<std::string, std::string>> calls;
  // A call that turns out broken at the end was streamed already: the
  // stream cannot take it back (the whole text then follows as content).
  bool broken = false;
};

const std::vector<Example>& Examples() {
  static const std::vector<Example> examples = {
      {"hermes", "Let me check.\n<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}\n</tool_call>",
       "Let me check.\n", {{"get_weather", R"({"city": "Paris"})"}}},
      {"hermes",
       "<tool_call>{\"name\": \"a\", \"arguments\": {\"x\": [1, 2, {\"y\": \"}\"}]}}</tool_call>\n"
       "<tool_call>{\"name\": \"b\", \"arguments\": {}}</tool_call>",
       "", {{"a", R"({"x": [1, 2, {"y": "}"}]})"}, {"b", "{}"}}},
      {"hermes", "No tools needed: 2 < 3.", "No tools needed: 2 < 3.", {}},
      {"hermes", "<tool_call>{\"name\": \"a\", \"arguments\": {\"x\": 1</tool_call>",  // broken: all content
       "<tool_call>{\"name\": \"a\", \"arguments\": {\"x\": 1</tool_call>", {}, /*broken=*/true},
      {"llama3_json", "{\"name\": \"search\", \"parameters\": {\"query\": \"paged attention\", \"k\": 3}}", "",
       {{"search", R"({"query": "paged attention", "k": 3})"}}},
      {"llama3_json", "<|python_tag|>{\"name\": \"a\", \"parameters\": {}}; {\"name\": \"b\", \"parameters\": {\"z\": null}}",
       "", {{"a", "{}"}, {"b", R"({"z": null})"}}},
      {"llama3_json", "The answer is {not json}.", "The answer is {not json}.", {}},
      {"mistral", "[TOOL_CALLS][{\"name\": \"add\", \"arguments\": {\"a\": 1, \"b\": 2.5}}, {\"name\": \"now\", \"arguments\": {}}]",
       "", {{"add", R"({"a": 1, "b": 2.5})"}, {"now", "{}"}}},
      {"mistral", "Sure. [TOOL_CALLS]add[ARGS]{\"a\": 1}", "Sure. ", {{"add", R"({"a": 1})"}}},
      {"mistral", "Plain [TOOL answer", "Plain [TOOL answer", {}},
      {"pythonic", "[get_weather(city='Paris', days=3), now()]", "",
       {{"get_weather", R"({"city": "Paris", "days": 3})"}, {"now", "{}"}}},
      {"pythonic", "[f(flag=True, none=None, items=[1, 'two'], opts={'k': \"v\"})]", "",
       {{"f", R"({"flag": true, "none": null, "items": [1, "two"], "opts": {"k": "v"}})"}}},
      {"pythonic", "[1, 2, 3] is a list.", "[1, 2, 3] is a list.", {}},
  };
  return examples;
}

TEST(ToolCallParserTest, EachFormatsExamples) {
  for (const Example& e : Examples()) {
    const ParsedToolOutput out = Parser(e.parser)->Parse(e.text, /*final=*/true);
    EXPECT_EQ(out.content, e.content) << e.parser << ": " << e.text;
    ExpectCalls(out, e.calls, e.parser + ": " + e.text);
  }
}

TEST(ToolCallParserTest, RequiredCallsAreTheForcedArray) {
  const RequiredToolCallParser parser;
  const ParsedToolOutput out =
      parser.Parse(R"([{"name": "a", "parameters": {"x": "]"}}, {"name": "b", "parameters": {}}])", true);
  EXPECT_EQ(out.content, "");
  ExpectCalls(out, {{"a", R"({"x": "]"})"}, {"b", "{}"}}, "required");
  // Cut off by max_tokens: no calls, the text is content.
  const std::string cut = R"([{"name": "a", "parameters": {"x": )";
  EXPECT_EQ(parser.Parse(cut, true).content, cut);
  EXPECT_TRUE(parser.Parse(cut, true).calls.empty());
}

TEST(ToolCallParserTest, UnknownParserIsNamed) {
  auto parser = MakeToolCallParser("hermes2");
  ASSERT_FALSE(parser.ok());
  EXPECT_NE(parser.status().message().find("hermes2"), std::string::npos);
  EXPECT_NE(parser.status().message().find("llama3_json"), std::string::npos);
}

// Feeds `text` one byte at a time and joins the deltas as a client does.
struct Assembled {
  std::string reasoning;
  std::string content;
  std::vector<std::pair<std::string, std::string>> calls;  // name, arguments
  std::vector<std::string> ids;
};

Assembled Stream(const ChatOutputParser& parser, const std::string& text) {
  Assembled out;
  ChatDeltas deltas;
  for (size_t n = 1; n <= text.size(); ++n) {
    const nlohmann::json delta = deltas.Next(parser.Parse(std::string_view(text).substr(0, n), n == text.size()));
    if (delta.contains("reasoning_content")) out.reasoning += delta["reasoning_content"].get<std::string>();
    if (delta.contains("content")) out.content += delta["content"].get<std::string>();
    for (const nlohmann::json& call : delta.value("tool_calls", nlohmann::json::array())) {
      const size_t index = call["index"].get<size_t>();
      if (call.contains("id")) {
        EXPECT_EQ(index, out.calls.size()) << "calls open in order";
        EXPECT_TRUE(call["function"].contains("name"));
        EXPECT_EQ(call["type"], "function");
        out.calls.emplace_back(call["function"]["name"].get<std::string>(), "");
        out.ids.push_back(call["id"].get<std::string>());
      }
      EXPECT_LT(index, out.calls.size()) << "arguments before the name";
      if (index < out.calls.size()) out.calls[index].second += call["function"]["arguments"].get<std::string>();
    }
  }
  return out;
}

TEST(ChatDeltasTest, StreamingRebuildsTheWholeParse) {
  for (const Example& e : Examples()) {
    ToolRequest tools;
    tools.choice = ToolChoice::kAuto;
    const auto parser = Parser(e.parser);
    const ChatOutputParser chat(nullptr, parser.get(), tools);
    const Assembled streamed = Stream(chat, e.text);
    const ChatOutputParts whole = chat.Parse(e.text, true);
    const std::string context = e.parser + ": " + e.text;
    if (e.broken) {
      EXPECT_EQ(streamed.content, e.text) << "the broken call's text follows as content";
      continue;
    }
    EXPECT_EQ(streamed.content, whole.content) << context;
    ASSERT_EQ(streamed.calls.size(), whole.calls.size()) << context;
    for (size_t i = 0; i < whole.calls.size(); ++i) {
      EXPECT_EQ(streamed.calls[i].first, whole.calls[i].name) << context;
      EXPECT_EQ(streamed.calls[i].second, whole.calls[i].arguments) << context;
      EXPECT_TRUE(streamed.ids[i].starts_with("chatcmpl-tool-")) << streamed.ids[i];
    }
  }
}

TEST(ChatDeltasTest, ContentNeverShowsMarkup) {
  // Every prefix's content is free of the call markup, also mid-marker.
  for (const Example& e : Examples()) {
    if (e.calls.empty()) continue;
    const auto parser = Parser(e.parser);
    for (size_t n = 0; n <= e.text.size(); ++n) {
      const ParsedToolOutput out = parser->Parse(std::string_view(e.text).substr(0, n), false);
      EXPECT_TRUE(e.content.starts_with(out.content)) << e.parser << " at " << n << ": '" << out.content << "'";
    }
  }
}

TEST(ChatDeltasTest, NamedFunctionStreamsItsArguments) {
  ToolRequest tools;
  tools.choice = ToolChoice::kNamed;
  tools.function = "get_weather";
  const ChatOutputParser chat(nullptr, nullptr, tools);
  const std::string text = R"({"city": "Paris", "unit": "celsius"})";
  const Assembled streamed = Stream(chat, text);
  ASSERT_EQ(streamed.calls.size(), 1u);
  EXPECT_EQ(streamed.calls[0].first, "get_weather");
  EXPECT_EQ(streamed.calls[0].second, text);
  EXPECT_EQ(streamed.content, "");
  EXPECT_FALSE(chat.calls_finish()) << "a named call finishes with stop, as OpenAI's";
}

TEST(ChatDeltasTest, OneCallWithoutParallelCalls) {
  ToolRequest tools;
  tools.choice = ToolChoice::kAuto;
  tools.parallel = false;
  const auto parser = Parser("hermes");
  const ChatOutputParser chat(nullptr, parser.get(), tools);
  const ChatOutputParts parts = chat.Parse(Examples()[1].text, true);
  ASSERT_EQ(parts.calls.size(), 1u);
  EXPECT_EQ(parts.calls[0].name, "a");
}

std::unique_ptr<ReasoningParser> Reasoning(const std::string& name) {
  auto parser = MakeReasoningParser(name);
  EXPECT_TRUE(parser.ok()) << parser.status().ToString();
  return std::move(*parser);
}

TEST(ReasoningParserTest, DeepSeekR1) {
  const auto parser = Reasoning("deepseek_r1");
  SplitReasoning s = parser->Split("Think about it.\n</think>\n\nThe answer is 4.", true);
  EXPECT_EQ(s.reasoning, "Think about it.\n");
  EXPECT_EQ(s.content, "\n\nThe answer is 4.");
  s = parser->Split("<think>Hmm</think>Yes", true);
  EXPECT_EQ(s.reasoning, "Hmm");
  EXPECT_EQ(s.content, "Yes");
  s = parser->Split("Still thinking", true);  // cut off: all reasoning
  EXPECT_EQ(s.reasoning, "Still thinking");
  EXPECT_FALSE(s.reasoning_ended);
  s = parser->Split("Thinking</thi", false);  // the marker may be coming
  EXPECT_EQ(s.reasoning, "Thinking");
}

TEST(ReasoningParserTest, Qwen3) {
  const auto parser = Reasoning("qwen3");
  SplitReasoning s = parser->Split("<think>\nAdd them.\n</think>\n\n4", true);
  EXPECT_EQ(s.reasoning, "\nAdd them.\n");
  EXPECT_EQ(s.content, "\n\n4");
  s = parser->Split("4, without thinking", true);
  EXPECT_FALSE(s.had_reasoning);
  EXPECT_EQ(s.content, "4, without thinking");
  EXPECT_FALSE(parser->Split("<thi", false).reasoning_ended) << "may still open the reasoning";
  EXPECT_FALSE(MakeReasoningParser("r1").ok());
}

TEST(ChatDeltasTest, ReasoningThenCalls) {
  ToolRequest tools;
  tools.choice = ToolChoice::kAuto;
  const auto reasoning = Reasoning("qwen3");
  const auto calls = Parser("hermes");
  const ChatOutputParser chat(reasoning.get(), calls.get(), tools);
  const std::string text =
      "<think>\nThe user wants weather. <tool_call> is how I call.\n</think>\n\n"
      "<tool_call>\n{\"name\": \"w\", \"arguments\": {\"c\": \"P\"}}\n</tool_call>";
  const ChatOutputParts whole = chat.Parse(text, true);
  EXPECT_EQ(*whole.reasoning, "\nThe user wants weather. <tool_call> is how I call.\n");
  EXPECT_EQ(whole.content, "\n\n");
  ASSERT_EQ(whole.calls.size(), 1u) << "calls inside the reasoning are not calls";
  const Assembled streamed = Stream(chat, text);
  EXPECT_EQ(streamed.reasoning, *whole.reasoning);
  EXPECT_EQ(streamed.content, whole.content);
  ASSERT_EQ(streamed.calls.size(), 1u);
  EXPECT_EQ(streamed.calls[0].second, whole.calls[0].arguments);
}

}  // namespace
}  // namespace pagoda::server
