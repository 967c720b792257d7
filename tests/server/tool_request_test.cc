// tools, tool_choice, parallel_tool_calls and the legacy functions: what
// each choice asks of the output, and the 400s that name the field.
#include "pagoda/server/tool_request.h"

#include <gtest/gtest.h>

namespace pagoda::server {
namespace {

struct Read {
  std::optional<ToolRequest> tools;
  SamplingParams params;
  std::optional<ApiError> error;
};

Read ReadBody(const std::string& text, bool auto_tool_choice = true, bool with_constraint = false) {
  const auto ordered = nlohmann::ordered_json::parse(text);
  const nlohmann::json body = ordered;
  FieldReader r(body);
  Read out;
  if (with_constraint) {
    StructuredOutputsParams constraint;
    constraint.regex = "a+";
    out.params.structured_outputs = constraint;
  }
  out.tools = ReadToolRequest(r, ordered, auto_tool_choice, out.params);
  out.error = r.error();
  return out;
}

constexpr const char* kTools = R"([
  {"type": "function", "function": {"name": "get_weather",
    "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}},
  {"type": "function", "function": {"name": "now"}}])";

std::string With(const std::string& fields) { return std::string(R"({"tools":)") + kTools + fields + "}"; }

TEST(ToolRequestTest, ToolsDefaultToAutoAndNeedTheParser) {
  Read read = ReadBody(With(""));
  ASSERT_FALSE(read.error) << read.error->message;
  EXPECT_EQ(read.tools->choice, ToolChoice::kAuto);
  EXPECT_FALSE(read.params.structured_outputs) << "auto leaves the output free";
  read = ReadBody(With(""), /*auto_tool_choice=*/false);
  ASSERT_TRUE(read.error);
  EXPECT_NE(read.error->message.find("--enable-auto-tool-choice"), std::string::npos);
  EXPECT_EQ(read.error->param, "tool_choice");
  // "none" needs no parser, and the template still sees the tools.
  read = ReadBody(With(R"(,"tool_choice":"none")"), false);
  ASSERT_FALSE(read.error);
  EXPECT_EQ(read.tools->choice, ToolChoice::kNone);
  EXPECT_EQ(read.tools->tools.size(), 2u);
  EXPECT_EQ(ReadBody("{}").tools->choice, ToolChoice::kNone);
}

TEST(ToolRequestTest, RequiredForcesAnArrayOfCalls) {
  for (const bool parallel : {true, false}) {
    const Read read = ReadBody(With(std::string(R"(,"tool_choice":"required","parallel_tool_calls":)") +
                                    (parallel ? "true" : "false")), false);
    ASSERT_FALSE(read.error) << read.error->message;
    ASSERT_TRUE(read.params.structured_outputs && read.params.structured_outputs->json);
    const auto schema = nlohmann::ordered_json::parse(*read.params.structured_outputs->json);
    EXPECT_EQ(schema["type"], "array");
    EXPECT_EQ(schema["minItems"], 1);
    EXPECT_EQ(schema.contains("maxItems"), !parallel);
    const auto& calls = schema["items"]["anyOf"];
    ASSERT_EQ(calls.size(), 2u);
    EXPECT_EQ(calls[0]["properties"]["name"]["enum"][0], "get_weather");
    EXPECT_EQ(calls[0]["properties"]["parameters"]["required"][0], "city");
    EXPECT_EQ(calls[1]["properties"]["parameters"]["type"], "object") << "no parameters: any object";
  }
}

TEST(ToolRequestTest, NamedFunctionForcesItsParameters) {
  const Read read =
      ReadBody(With(R"(,"tool_choice":{"type":"function","function":{"name":"get_weather"}})"), false);
  ASSERT_FALSE(read.error) << read.error->message;
  EXPECT_EQ(read.tools->choice, ToolChoice::kNamed);
  EXPECT_EQ(read.tools->function, "get_weather");
  const auto schema = nlohmann::ordered_json::parse(*read.params.structured_outputs->json);
  EXPECT_EQ(schema, nlohmann::ordered_json::parse(kTools)[0]["function"]["parameters"]);
}

TEST(ToolRequestTest, LegacyFunctionsAreTools) {
  const Read read = ReadBody(
      R"({"functions":[{"name":"now","parameters":{"type":"object"}}],"function_call":{"name":"now"}})", false);
  ASSERT_FALSE(read.error) << read.error->message;
  EXPECT_TRUE(read.tools->legacy_functions);
  EXPECT_EQ(read.tools->choice, ToolChoice::kNamed);
  EXPECT_EQ(read.tools->tools[0]["type"], "function");
  EXPECT_EQ(read.tools->tools[0]["function"]["name"], "now");
}

TEST(ToolRequestTest, ErrorsNameTheField) {
  const struct {
    std::string body;
    std::string param;
    std::string says;
  } cases[] = {
      {R"({"tool_choice":"required"})", "tool_choice", "'tools' must be set"},
      {With(R"(,"tool_choice":{"type":"function","function":{"name":"nope"}})"), "tool_choice", "nope"},
      {With(R"(,"tool_choice":"sometimes")"), "tool_choice", "sometimes"},
      {With(R"(,"tool_choice":{"name":"now"})"), "tool_choice", "'tool_choice' must be"},
      {R"({"tools":[{"type":"function","function":{"description":"x"}}]})", "tools[0].function.name", "non-empty"},
      {R"({"tools":[{"type":"retrieval"}]})", "tools[0]", "\"type\": \"function\""},
      {R"({"tools":{}})", "tools", "list"},
      {R"({"tools":[{"type":"function","function":{"name":"f","parameters":3}}]})", "tools[0].function.parameters",
       "schema"},
      {With(R"(,"functions":[])"), "functions", "not both"},
      {R"({"functions":[{"name":"f"}],"function_call":"required"})", "function_call", "required"},
      {With(R"(,"parallel_tool_calls":"yes")"), "parallel_tool_calls", "boolean"},
  };
  for (const auto& c : cases) {
    const Read read = ReadBody(c.body);
    ASSERT_TRUE(read.error) << c.body;
    EXPECT_EQ(read.error->param, c.param) << c.body;
    EXPECT_NE(read.error->message.find(c.says), std::string::npos) << c.body << ": " << read.error->message;
  }
  const Read both = ReadBody(With(R"(,"tool_choice":"required")"), true, /*with_constraint=*/true);
  ASSERT_TRUE(both.error);
  EXPECT_NE(both.error->message.find("structured-output"), std::string::npos);
}

}  // namespace
}  // namespace pagoda::server
