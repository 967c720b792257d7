#include "pagoda/structured/ebnf.h"

#include <gtest/gtest.h>

#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "grammar_test_util.h"

namespace pagoda::structured {
namespace {

using testing::Accepts;

std::shared_ptr<const Grammar> Compile(const std::string& text, const EbnfOptions& options = {}) {
  auto grammar = EbnfToGrammar(text, options);
  EXPECT_TRUE(grammar.ok()) << text << "\n" << grammar.status().ToString();
  return grammar.ok() ? std::make_shared<const Grammar>(std::move(*grammar)) : nullptr;
}

// The refusal's message, "" if the text was accepted.
std::string Refusal(const std::string& text, const EbnfOptions& options = {}) {
  auto grammar = EbnfToGrammar(text, options);
  if (grammar.ok()) return "";
  EXPECT_EQ(grammar.status().code(), StatusCode::kInvalidArgument) << grammar.status().ToString();
  return grammar.status().message();
}

std::string FromHex(const std::string& hex) {
  std::string bytes;
  for (size_t i = 0; i + 1 < hex.size(); i += 2)
    bytes.push_back(static_cast<char>(std::stoi(hex.substr(i, 2), nullptr, 16)));
  return bytes;
}

// tests/fixtures/structured/ebnf/ebnf_cases.jsonl, from make_ebnf_cases.py:
// grammars with strings labeled by xgrammar's matcher, and grammars that
// xgrammar refuses.
std::vector<nlohmann::json> Cases() {
  std::ifstream in(std::string(PAGODA_FIXTURES_DIR) + "/structured/ebnf/ebnf_cases.jsonl");
  EXPECT_TRUE(in.good());
  std::vector<nlohmann::json> cases;
  for (std::string line; std::getline(in, line);) {
    if (!line.empty()) cases.push_back(nlohmann::json::parse(line));
  }
  return cases;
}

TEST(structured_ebnf, AcceptsWhatXgrammarAccepts) {
  int grammars = 0;
  int strings = 0;
  for (const nlohmann::json& c : Cases()) {
    if (!c["valid"].get<bool>()) continue;
    const std::string name = c["name"];
    std::vector<std::string> spellings = {c["grammar"]};
    if (c.contains("pagoda_grammar")) spellings.push_back(c["pagoda_grammar"]);
    for (const std::string& text : spellings) {
      const auto grammar = Compile(text);
      if (grammar == nullptr) continue;
      ++grammars;
      for (const nlohmann::json& s : c["strings"]) {
        const std::string input = s.contains("hex") ? FromHex(s["hex"]) : s["text"].get<std::string>();
        EXPECT_EQ(Accepts(grammar, input), s["accept"].get<bool>()) << name << ": " << nlohmann::json(s).dump() << "\n"
                                                                    << text;
        ++strings;
      }
    }
  }
  EXPECT_GE(grammars, 40);
  EXPECT_GE(strings, 1500);
}

TEST(structured_ebnf, RefusesWhatXgrammarRefusesOnTheSameLine) {
  int refused = 0;
  for (const nlohmann::json& c : Cases()) {
    if (c["valid"].get<bool>()) continue;
    const std::string text = c["grammar"];
    const std::string error = c["error"];
    const std::string message = Refusal(text);
    EXPECT_NE(message, "") << c["name"] << " was accepted:\n" << text;
    // xgrammar: "EBNF parser error at line L, column C: ..."; here "ebnf: line L, column C: ...".
    const std::string line =
        error.substr(error.find("line "), error.find(',', error.find("line ")) - error.find("line "));
    EXPECT_TRUE(message.starts_with("ebnf: " + line + ",")) << c["name"] << ": " << message << "\nxgrammar: " << error;
    ++refused;
  }
  EXPECT_GE(refused, 25);
}

TEST(structured_ebnf, DotIsAnyCodePoint) {
  const auto dot = Compile(R"(root ::= . "!")");
  ASSERT_NE(dot, nullptr);
  for (const char* good : {"a!", "\n!", "\xC3\xA9!", "\xF0\x9F\x98\x80!"}) EXPECT_TRUE(Accepts(dot, good)) << good;
  for (const char* bad : {"!", "ab!", "\xC3!", "\xED\xA0\x80!", "\xC0\x80!"}) EXPECT_FALSE(Accepts(dot, bad)) << bad;
}

TEST(structured_ebnf, OtherRootRule) {
  EbnfOptions options;
  options.root_rule = "start";
  const auto grammar = Compile("start ::= \"a\" root\nroot ::= \"b\"", options);
  ASSERT_NE(grammar, nullptr);
  EXPECT_TRUE(Accepts(grammar, "ab"));
  EXPECT_FALSE(Accepts(grammar, "b"));
  EXPECT_EQ(Refusal(R"(root ::= "a")", options),
            "ebnf: line 1, column 1: no rule 'start', where matching starts: define 'start ::= ...'");
}

TEST(structured_ebnf, SurrogatesAreNotCharacters) {
  // xgrammar's classes take UTF-8-encoded surrogates (ED A0 80); they are not UTF-8.
  const auto grammar = Compile("root ::= [^a]");
  ASSERT_NE(grammar, nullptr);
  EXPECT_FALSE(Accepts(grammar, "\xED\xA0\x80"));
  EXPECT_TRUE(Accepts(grammar, "\xED\x9F\xBF"));  // U+D7FF
  EXPECT_EQ(Refusal(R"(root ::= "\uD800")"), "ebnf: line 1, column 11: escape U+D800 is a surrogate, not a character");
  EXPECT_EQ(Refusal(R"(root ::= [\uDFFF])"), "ebnf: line 1, column 11: escape U+DFFF is a surrogate, not a character");
}

struct RefusalCase {
  const char* text;
  const char* message;
};

TEST(structured_ebnf, RefusalsNameLineAndColumn) {
  const RefusalCase cases[] = {
      // Names.
      {"root ::= \"a\"\n  x", "ebnf: line 2, column 3: rule 'x' is used but not defined"},
      {"root ::= \"a\"\nroot ::= \"b\"",
       "ebnf: line 2, column 1: rule 'root' is defined twice (first at line 1, column 1)"},
      {"a ::= \"x\"\nb ::= a", "ebnf: line 1, column 1: no rule 'root', where matching starts: define 'root ::= ...'"},
      {"", "ebnf: line 1, column 1: the grammar has no rules: it needs 'root ::= ...'"},
      {"# only a comment\n", "ebnf: line 1, column 1: the grammar has no rules: it needs 'root ::= ...'"},
      {"root ::= \"a\" b ::= \"c\"", "ebnf: line 1, column 14: rule 'b' must begin a new line (one rule per line)"},
      {"9lives ::= \"a\"", "ebnf: line 1, column 1: a rule name cannot start with a digit"},
      {"root ::= 9",
       "ebnf: line 1, column 10: unexpected digit: rule names cannot start with one, and counts go in {m,n}"},
      {"a.b ::= \"x\"", "ebnf: line 1, column 1: rule names cannot contain '.' (here '.' stands for any character)"},
      {"root \"a\"", "ebnf: line 1, column 6: expected '::=' after rule name 'root', found '\"'"},
      {"root", "ebnf: line 1, column 5: expected '::=' after rule name 'root', found the end of the grammar"},
      {"::= \"a\"", "ebnf: line 1, column 1: '::=' without a rule name before it"},
      {"\"a\"", "ebnf: line 1, column 1: expected a rule ('name ::= ...'), found '\"'"},
      // Brackets.
      {"root ::= (\"a\" | \"b\"", "ebnf: line 1, column 10: '(' is never closed"},
      {"root ::= (\"a\"\nb ::= \"c\"", "ebnf: line 1, column 10: '(' is never closed"},
      {"root ::= \"a\")", "ebnf: line 1, column 13: ')' without a matching '('"},
      {"root ::= \"a\"]", "ebnf: line 1, column 13: ']' without a matching '['"},
      {"root ::= \"a\"}", "ebnf: line 1, column 13: '}' without a matching '{'"},
      {"root ::= [a-z", "ebnf: line 1, column 10: '[' is never closed"},
      {"root ::= [a-z\n]",
       "ebnf: line 1, column 10: character class is not closed on its line (write [\\n] for a newline)"},
      {"root ::=\n  \"abc",
       "ebnf: line 2, column 3: string literal is not closed on its line (write \\n for a newline)"},
      // Escapes and UTF-8.
      {"root ::= \"\\q\"",
       "ebnf: line 1, column 11: invalid escape '\\q' (in a string, only \\n \\t \\r \\\\ \\\" \\' \\? \\/ \\a \\b "
       "\\f \\v \\0 \\e \\x \\u \\U)"},
      {"root ::= \"\\[\"",
       "ebnf: line 1, column 11: invalid escape '\\[' (in a string, only \\n \\t \\r \\\\ \\\" \\' \\? \\/ \\a \\b "
       "\\f \\v \\0 \\e \\x \\u \\U)"},
      {"root ::= [\\q]", "ebnf: line 1, column 11: invalid escape '\\q'"},
      {"root ::= \"\\u12\"", "ebnf: line 1, column 11: invalid escape: '\\u' needs 4 hex digits"},
      {"root ::= \"\\U0001F60\"", "ebnf: line 1, column 11: invalid escape: '\\U' needs 8 hex digits"},
      {"root ::= \"\\xg\"", "ebnf: line 1, column 11: invalid escape: '\\x' needs at least one hex digit"},
      {"root ::= \"\\x110000\"", "ebnf: line 1, column 11: escape is past U+10FFFF, the last code point"},
      {"root ::= \"\\U00110000\"", "ebnf: line 1, column 11: escape is past U+10FFFF, the last code point"},
      {"root ::= [\\d]",
       "ebnf: line 1, column 11: class shorthand '\\d' is not supported: write the ranges, as in [0-9] or "
       "[a-zA-Z0-9_]"},
      {"root ::= \"\xC3\xA9\xFF\"", "ebnf: line 1, column 12: invalid UTF-8 (byte 0xFF)"},
      {"root ::= \"\xC0\x80\"", "ebnf: line 1, column 11: invalid UTF-8 (byte 0xC0)"},
      {"root ::= [\xED\xA0\x80]", "ebnf: line 1, column 11: invalid UTF-8 (byte 0xED)"},
      {"root ::= \"a\" \xE9", "ebnf: line 1, column 14: invalid UTF-8 (byte 0xE9)"},
      {"root ::= \"\\", "ebnf: line 1, column 11: '\\' at the end of the grammar"},
      // Classes.
      {"root ::= []",
       "ebnf: line 1, column 10: empty character class '[]' matches nothing (write [^] for any character)"},
      {"root ::= [^\\x00-\\U0010FFFF]", "ebnf: line 1, column 10: character class excludes every character"},
      {"root ::= [a-cz-x]",
       "ebnf: line 1, column 14: character range 'z'-'x' is reversed (its first is after its last)"},
      // Quantifiers.
      {"root ::= \"a\"++",
       "ebnf: line 1, column 14: a second quantifier '+' on one element: put the quantified element in "
       "parentheses"},
      {"root ::= \"a\"{2}?",
       "ebnf: line 1, column 16: a second quantifier '?' on one element: put the quantified element in "
       "parentheses"},
      {"root ::= * \"a\"", "ebnf: line 1, column 10: quantifier '*' without an element before it"},
      {"root ::= \"a\"{,3}", "ebnf: line 1, column 14: '{,n}' needs a lower bound: write {0,n}"},
      {"root ::= \"a\"{3,2}", "ebnf: line 1, column 16: repeat range {3,2} has its upper bound below its lower bound"},
      {"root ::= \"a\"{3",
       "ebnf: line 1, column 15: expected ',' or '}' in a repeat range, found the end of the grammar"},
      {"root ::= \"a\"{x}", "ebnf: line 1, column 14: expected a repeat count, found 'x'"},
      {"root ::= \"a\"{10001}", "ebnf: line 1, column 14: repeat count 10001 is over the limit of 10000"},
      {"root ::= \"a\"{1,99999999999999999999}",
       "ebnf: line 1, column 16: repeat count 99999999999999999999 is over the limit of 10000"},
      // Sequences.
      {"root ::= \"a\" |",
       "ebnf: line 1, column 15: expected an element (a string, a class, a rule name or a group), found the "
       "end of the grammar"},
      {"root ::= | \"a\"",
       "ebnf: line 1, column 10: expected an element (a string, a class, a rule name or a group), found '|' "
       "(write \"\" for the empty string)"},
      {"root ::= 'a'", "ebnf: line 1, column 10: string literals use double quotes (\"...\"), not single ones"},
      {"root ::= \"a\" @", "ebnf: line 1, column 14: unexpected '@'"},
      // xgrammar's extensions.
      {"root ::= \"a\" (= \"b\")",
       "ebnf: line 1, column 14: lookahead assertions '(= ...)' (an xgrammar extension) are not "
       "supported"},
      {"root ::= TagDispatch((\"<t>\", t))\nt ::= \"x\"",
       "ebnf: line 1, column 10: xgrammar's TagDispatch(...) macro is not "
       "supported"},
      {"root ::= \"n\" Regex (\"[0-9]+\")", "ebnf: line 1, column 14: xgrammar's Regex(...) macro is not supported"},
      {"root ::= Token(1)", "ebnf: line 1, column 10: xgrammar's Token(...) macro is not supported"},
      {"root ::= r\nr[max_tokens=5] ::= \"a\"",
       "ebnf: line 2, column 1: rule options such as 'r[...]' (an xgrammar extension) "
       "are not supported"},
      // Lark.
      {"start: \"a\"",
       "ebnf: line 1, column 1: 'start:' looks like Lark, which a GBNF grammar cannot mix in: write GBNF rules "
       "'name ::= ...' starting from 'root ::= ...', or the whole grammar in Lark (without '::=')"},
      {"?start: value\nvalue: \"a\"",
       "ebnf: line 1, column 1: '?start' looks like Lark, which a GBNF grammar cannot mix in: "
       "write GBNF rules 'name ::= ...' starting from 'root ::= ...', or the whole grammar in Lark (without '::=')"},
      {"root ::= \"a\"\nvalue : \"a\"",
       "ebnf: line 2, column 1: 'value:' looks like Lark, which a GBNF grammar cannot mix in: "
       "write GBNF rules 'name ::= ...' starting from 'root ::= ...', or the whole grammar in Lark (without '::=')"},
      {"%import common.WS\nroot ::= \"a\"",
       "ebnf: line 1, column 1: '%import' looks like Lark, which a GBNF grammar cannot mix in: "
       "write GBNF rules 'name ::= ...' starting from 'root ::= ...', or the whole grammar in Lark (without '::=')"},
      // Columns count code points.
      {"root ::= \"\xC3\xA9\xE4\xB8\xAD\" x", "ebnf: line 1, column 15: rule 'x' is used but not defined"},
      {"root ::= \"a\"\r\n\r\n  x", "ebnf: line 3, column 3: rule 'x' is used but not defined"},
      {"root ::= \"a\"\r  x", "ebnf: line 2, column 3: rule 'x' is used but not defined"},
  };
  for (const RefusalCase& c : cases) EXPECT_EQ(Refusal(c.text), c.message) << c.text;
}

TEST(structured_ebnf, BuilderRefusalsArePlacedAtTheirRule) {
  // Left recursion through another rule: xgrammar (an Earley parser) takes it; GrammarBuilder does not.
  EXPECT_EQ(
      Refusal("root ::= \"x\" | a \"y\"\na ::= root \"z\""),
      "ebnf: line 1, column 1: left recursion through root -> a -> root is not supported (only a rule that starts "
      "with itself can be rewritten)");
  // Through an auxiliary rule of `expr` (its group).
  const std::string through_group = Refusal("root ::= expr\nexpr ::= (expr \"+\")? \"1\"");
  EXPECT_TRUE(through_group.starts_with("ebnf: line 2, column 1: left recursion through expr")) << through_group;

  EbnfOptions small;
  small.limits.max_symbols = 1000;
  const std::string large = Refusal("root ::= \"a\"\n  big\nbig ::= (\"ab\" [0-9]){600}", small);
  EXPECT_TRUE(large.starts_with("ebnf: line 3, column 1: too large (over 1000 symbols")) << large;
}

TEST(structured_ebnf, NestingAndSizeAreBounded) {
  std::string deep = "root ::= ";
  for (int i = 0; i < 300; ++i) deep += "(\"a\" ";
  for (int i = 0; i < 300; ++i) deep += ")";
  EXPECT_EQ(Refusal(deep), "ebnf: line 1, column 1290: parentheses nested over 256 deep");

  std::string ok = "root ::= ";
  for (int i = 0; i < 200; ++i) ok += "(\"a\" ";
  for (int i = 0; i < 200; ++i) ok += ")?";
  const auto grammar = Compile(ok);
  ASSERT_NE(grammar, nullptr);
  EXPECT_TRUE(Accepts(grammar, std::string(200, 'a')));
  EXPECT_FALSE(Accepts(grammar, std::string(201, 'a')));

  // 110 rules of 10,001 symbols each pass the default limit of 2^20 symbols.
  std::string many = "root ::=";
  for (int i = 0; i < 110; ++i) many += " r" + std::to_string(i);
  for (int i = 0; i < 110; ++i) many += "\nr" + std::to_string(i) + " ::= [0-9]{10000}";
  const std::string huge = Refusal(many);
  EXPECT_NE(huge.find("too large"), std::string::npos) << huge;
}

TEST(structured_ebnf, RepeatsAndRecursion) {
  const auto grammar = Compile(R"(
    # a comment before the first rule
    root ::= item ("," item){0,3}   # up to four items
    item ::= [0-9]{1,2} | "[" root "]"
  )");
  ASSERT_NE(grammar, nullptr);
  for (const char* good : {"1", "12,3", "[1,2],3,4,[5]", "[[[7]]]"}) EXPECT_TRUE(Accepts(grammar, good)) << good;
  for (const char* bad : {"", "123", "1,2,3,4,5", "[1", "1,"}) EXPECT_FALSE(Accepts(grammar, bad)) << bad;
}

}  // namespace
}  // namespace pagoda::structured
