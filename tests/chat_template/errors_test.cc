// What failures look like: syntax errors with their position, the
// template's own raise_exception() message, runtime errors with the position
// of the expression that failed.
#include <gtest/gtest.h>

#include <string>

#include "render_helpers.h"

namespace pagoda::chat_template {
namespace {

using testing::FailsWith;
using testing::Render;

std::string ParseError(const std::string& source) {
  StatusOr<ChatTemplate> parsed = ChatTemplate::Parse(source);
  EXPECT_FALSE(parsed.ok()) << source;
  if (parsed.ok()) return "";
  EXPECT_EQ(parsed.status().code(), StatusCode::kInvalidArgument);
  return parsed.status().message();
}

TEST(Errors, SyntaxErrorsNameLineAndColumn) {
  EXPECT_EQ(ParseError("Hello\n{% if x %}no end"),
            "chat template syntax error at line 2, column 17: unexpected end of template, expected 'elif'");
  EXPECT_EQ(ParseError("{{ x | }}"),
            "chat template syntax error at line 1, column 8: expected 'name', got 'end of print "
            "statement'");
  EXPECT_EQ(ParseError("{% for x in y %}{% endif %}"),
            "chat template syntax error at line 1, column 20: unknown or unsupported tag 'endif'");
  EXPECT_EQ(ParseError("{{ 'abc }}"), "chat template syntax error at line 1, column 4: unterminated string literal");
  EXPECT_EQ(ParseError("a\n{# never closed"),
            "chat template syntax error at line 2, column 1: missing end of comment tag");
  EXPECT_EQ(ParseError("{{ (1, 2 }}"), "chat template syntax error at line 1, column 10: unexpected '}', expected ')'");
  // Columns count characters, not bytes.
  EXPECT_EQ(ParseError("é\n  {{ x | nosuch }}"),
            "chat template syntax error at line 2, column 10: no filter named 'nosuch'");
}

TEST(Errors, UnsupportedConstructsAreSyntaxErrors) {
  EXPECT_NE(ParseError("{% include 'other.jinja' %}").find("unknown or unsupported tag 'include'"), std::string::npos);
  EXPECT_NE(ParseError("{% for x in y recursive %}{% endfor %}").find("recursive loops are not supported"),
            std::string::npos);
  EXPECT_NE(ParseError("{% break %}").find("'break' outside of a loop"), std::string::npos);
  EXPECT_NE(ParseError("{% macro m(a=1, b) %}{% endmacro %}").find("non-default argument follows default"),
            std::string::npos);
  EXPECT_NE(ParseError("{% set 1 = 2 %}").find("can't assign"), std::string::npos);
  EXPECT_NE(ParseError("\xff").find("not valid UTF-8"), std::string::npos);
}

TEST(Errors, RaiseExceptionGivesExactlyTheTemplatesMessage) {
  EXPECT_EQ(Render("{{ raise_exception('Conversation roles must alternate user/assistant') }}"),
            "ERROR: Conversation roles must alternate user/assistant");
  EXPECT_EQ(Render("{% if true %}{{ raise_exception(42) }}{% endif %}"), "ERROR: 42");
}

TEST(Errors, RuntimeErrorsNameThePosition) {
  EXPECT_EQ(Render("line one\n  {{ 1 / 0 }}"), "ERROR: chat template error at line 2, column 8: division by zero");
  EXPECT_EQ(Render("{{ messages[0].content.upper() }}", R"({"messages": [{"role": "user"}]})"),
            "ERROR: chat template error at line 1, column 23: 'dict object' has no attribute 'content'");
  EXPECT_TRUE(FailsWith("{{ x() }}", "'str' object is not callable", R"({"x": "s"})"));
  EXPECT_TRUE(FailsWith("{{ 'a'.split(1, 2, 3) }}", "split() takes at most 2 argument(s) (3 given)"));
  EXPECT_TRUE(FailsWith("{{ 'a'.startswith(nope=1) }}", "got an unexpected keyword argument 'nope'"));
}

TEST(Errors, BadContexts) {
  StatusOr<ChatTemplate> t = ChatTemplate::Parse("{{ x }}");
  ASSERT_TRUE(t.ok());
  EXPECT_FALSE(t->Render(nlohmann::json::array()).ok());
  StatusOr<std::string> bad = t->Render(nlohmann::json{{"x", "\xc3"}});
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(), "chat template context: context string is not valid UTF-8");
  EXPECT_FALSE(t->Render(nlohmann::json{{"x", 18446744073709551615ull}}).ok());
}

TEST(Errors, NlohmannJsonContextsWorkButSortKeys) {
  StatusOr<ChatTemplate> t = ChatTemplate::Parse("{{ d | tojson }}");
  ASSERT_TRUE(t.ok());
  nlohmann::json context;
  context["d"]["b"] = 1;
  context["d"]["a"] = 2;
  EXPECT_EQ(*t->Render(context), R"({"a": 2, "b": 1})");
}

}  // namespace
}  // namespace pagoda::chat_template
