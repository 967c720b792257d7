// The structured-output fields of a request in each spelling, and the
// errors that name the field.
#include "pagoda/server/structured_outputs_request.h"

#include <gtest/gtest.h>

namespace pagoda::server {
namespace {

struct Read {
  SamplingParams params;
  std::optional<ApiError> error;
};

Read ReadBody(const std::string& text) {
  const auto ordered = nlohmann::ordered_json::parse(text);
  const nlohmann::json body = ordered;
  FieldReader r(body);
  Read out;
  ReadStructuredOutputs(r, ordered, out.params);
  out.error = r.error();
  return out;
}

// The schema text keeps the client's property order ("b" before "a").
constexpr const char* kSchema = R"({"type":"object","properties":{"b":{"type":"integer"},"a":{"type":"string"}}})";

TEST(StructuredOutputsRequestTest, EverySpellingOfASchema) {
  for (const std::string& body :
       {std::string(R"({"structured_outputs":{"json":)") + kSchema + "}}",
        std::string(R"({"guided_json":)") + kSchema + "}",
        std::string(R"({"response_format":{"type":"json_schema","json_schema":{"name":"x","strict":true,"schema":)") +
            kSchema + "}}}"}) {
    const Read read = ReadBody(body);
    ASSERT_FALSE(read.error) << body << ": " << read.error->message;
    ASSERT_TRUE(read.params.structured_outputs && read.params.structured_outputs->json) << body;
    EXPECT_EQ(*read.params.structured_outputs->json, nlohmann::ordered_json::parse(kSchema).dump()) << body;
  }
  // A schema given as a JSON string is passed on as written.
  const Read as_string = ReadBody(R"({"guided_json":"{\"type\":\"integer\"}"})");
  ASSERT_TRUE(as_string.params.structured_outputs);
  EXPECT_EQ(*as_string.params.structured_outputs->json, R"({"type":"integer"})");
}

TEST(StructuredOutputsRequestTest, OtherConstraintsAndOptions) {
  Read read = ReadBody(R"({"guided_choice":["a","b"],"guided_decoding_backend":"xgrammar"})");
  ASSERT_TRUE(read.params.structured_outputs && read.params.structured_outputs->choice);
  EXPECT_EQ(*read.params.structured_outputs->choice, (std::vector<std::string>{"a", "b"}));

  read = ReadBody(R"({"structured_outputs":{"regex":"[0-9]+","disable_fallback":true}})");
  ASSERT_TRUE(read.params.structured_outputs);
  EXPECT_EQ(read.params.structured_outputs->regex, "[0-9]+");
  EXPECT_TRUE(read.params.structured_outputs->disable_fallback);

  read = ReadBody(R"({"guided_grammar":"root ::= \"x\""})");
  EXPECT_EQ(read.params.structured_outputs->grammar, "root ::= \"x\"");

  read = ReadBody(R"({"response_format":{"type":"json_object"},"guided_whitespace_pattern":"[ ]?"})");
  ASSERT_TRUE(read.params.structured_outputs);
  EXPECT_EQ(read.params.structured_outputs->json_object, true);
  EXPECT_EQ(read.params.structured_outputs->whitespace_pattern, "[ ]?");

  read = ReadBody(R"({"response_format":{"type":"text"}})");
  EXPECT_FALSE(read.error);
  EXPECT_FALSE(read.params.structured_outputs);
}

TEST(StructuredOutputsRequestTest, ErrorsNameTheField) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {R"({"guided_regex":"a","response_format":{"type":"json_object"}})", "guided_regex"},
      {R"({"structured_outputs":{"regex":"a","choice":["b"]}})", "structured_outputs.choice"},
      {R"({"structured_outputs":{"regex":"a","backend":"x"}})", "structured_outputs.backend"},
      {R"({"structured_outputs":{}})", "structured_outputs"},
      {R"({"structured_outputs":{"structural_tag":"{}"}})", "structured_outputs.structural_tag"},
      {R"({"structured_outputs":"json"})", "structured_outputs"},
      {R"({"guided_choice":["a",1]})", "guided_choice"},
      {R"({"guided_choice":[]})", "structured_outputs"},
      {R"({"guided_json":3})", "guided_json"},
      {R"({"response_format":{"type":"json_schema"}})", "response_format"},
      {R"({"response_format":{"type":"yaml"}})", "response_format"},
      {R"({"response_format":"json"})", "response_format"},
      {R"({"guided_whitespace_pattern":" "})", "guided_whitespace_pattern"},
  };
  for (const auto& [body, field] : cases) {
    const Read read = ReadBody(body);
    ASSERT_TRUE(read.error) << body;
    EXPECT_EQ(read.error->status, 400) << body;
    EXPECT_EQ(read.error->param, field) << body << ": " << read.error->message;
    EXPECT_FALSE(read.error->message.empty());
  }
}

}  // namespace
}  // namespace pagoda::server
