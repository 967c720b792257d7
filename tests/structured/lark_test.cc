#include "pagoda/structured/lark.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "grammar_test_util.h"
#include "pagoda/structured/grammar_matcher.h"
#include "pagoda/structured/grammar_text.h"
#include "pagoda/structured/lark_common.h"

namespace pagoda::structured {
namespace {

using testing::Accepts;
using testing::AcceptsPrefix;

std::shared_ptr<const Grammar> Compile(const std::string& text, const LarkOptions& options = {}) {
  auto grammar = LarkToGrammar(text, options);
  EXPECT_TRUE(grammar.ok()) << text << "\n" << grammar.status().ToString();
  return grammar.ok() ? std::make_shared<const Grammar>(std::move(*grammar)) : nullptr;
}

// The refusal's message, "" if the text was accepted.
std::string Refusal(const std::string& text, const LarkOptions& options = {}) {
  auto grammar = LarkToGrammar(text, options);
  if (grammar.ok()) return "";
  EXPECT_EQ(grammar.status().code(), StatusCode::kInvalidArgument) << grammar.status().ToString();
  return grammar.status().message();
}

// tests/fixtures/structured/lark/lark_cases.jsonl, from make_lark_cases.py:
// grammars with strings labeled by the lark package, and grammars it refuses.
std::vector<nlohmann::json> Cases() {
  std::ifstream in(std::string(PAGODA_FIXTURES_DIR) + "/structured/lark/lark_cases.jsonl");
  EXPECT_TRUE(in.good());
  std::vector<nlohmann::json> cases;
  for (std::string line; std::getline(in, line);) {
    if (!line.empty()) cases.push_back(nlohmann::json::parse(line));
  }
  return cases;
}

TEST(structured_lark, AcceptsWhatLarkAccepts) {
  int grammars = 0;
  int strings = 0;
  int accepted = 0;
  for (const nlohmann::json& c : Cases()) {
    if (!c["valid"].get<bool>()) continue;
    const std::string name = c["name"];
    const std::string text = c["grammar"];
    LarkOptions options;
    options.start = c["start"];
    // The dispatch reads every one of these as Lark.
    EXPECT_EQ(DetectGrammarDialect(text), GrammarDialect::kLark) << name;
    const auto grammar = Compile(text, options);
    if (grammar == nullptr) continue;
    ++grammars;
    for (const nlohmann::json& s : c["strings"]) {
      const std::string input = s["text"];
      const bool accept = s["accept"];
      EXPECT_EQ(Accepts(grammar, input), accept) << name << ": " << nlohmann::json(input).dump() << "\n" << text;
      if (accept) {
        // Every prefix of a sentence can be continued.
        for (size_t n = 0; n < input.size(); ++n) {
          EXPECT_TRUE(AcceptsPrefix(grammar, input.substr(0, n))) << name << ": prefix " << n << " of " << input;
        }
      }
      ++strings;
      accepted += accept;
    }
  }
  EXPECT_GE(grammars, 31);
  EXPECT_GE(strings, 1440);
  EXPECT_GE(accepted, 700);
}

TEST(structured_lark, RefusesWhatLarkRefuses) {
  int refused = 0;
  for (const nlohmann::json& c : Cases()) {
    if (c["valid"].get<bool>()) continue;
    const std::string text = c["grammar"];
    const std::string message = Refusal(text);
    EXPECT_TRUE(message.starts_with("lark: line "))
        << c["name"] << " (lark: " << c["error"] << "): '" << message << "'\n"
        << text;
    ++refused;
  }
  EXPECT_GE(refused, 36);
}

struct RefusalCase {
  const char* text;
  const char* message;
};

TEST(structured_lark, RefusalsNameLineColumnAndConstruct) {
  const RefusalCase cases[] = {
      // Names and definitions.
      {"start: \"a\"\nfoo: bar", "lark: line 2, column 6: rule 'bar' is used but not defined"},
      {"start: WS", "lark: line 1, column 8: terminal 'WS' is used but not defined (import it: '%import common.WS')"},
      {"start: \"a\"\nfoo: \"b\"\n  foo: \"c\"",
       "lark: line 3, column 3: rule 'foo' is defined twice (first at line 2, column 1)"},
      {"start: WS\nWS: \" \"\n%import common.WS",
       "lark: line 3, column 16: terminal 'WS' is defined twice (first at line 2, column 1)"},
      {"start: A\nA: b\nb: \"x\"",
       "lark: line 2, column 4: rule 'b' is used in a terminal: terminals may use only terminals, strings, ranges "
       "and regular expressions"},
      {"start: A\nA: \"x\" B\nB: \"y\" A",
       "lark: line 2, column 1: terminal 'A' is recursive (A -> B -> A): only "
       "rules may recurse"},
      {"start: A\nA: \"a\"*",
       "lark: line 2, column 1: terminal 'A' matches the empty string, which Lark does not allow for a terminal "
       "that a rule uses or %ignore names"},
      {"start: \"x\" /a?/",
       "lark: line 1, column 12: regular expression /a?/ matches the empty string, which Lark does not allow for a "
       "terminal"},
      {"start: \"a\"\n%ignore \" \"?",
       "lark: line 2, column 1: what '%ignore' names matches the empty string, which Lark does not allow for a "
       "terminal"},
      {"x: \"a\"",
       "lark: line 1, column 1: no rule 'start', where matching starts: define 'start: ...' (Lark "
       "starts at 'start', not at the first rule)"},
      {"START: \"a\"",
       "lark: line 1, column 1: no rule 'start', where matching starts: define 'start: ...' (Lark "
       "starts at 'start', not at the first rule)"},
      {"", "lark: line 1, column 1: the grammar has no rules: it needs 'start: ...'"},
      {"// only a comment\n", "lark: line 1, column 1: the grammar has no rules: it needs 'start: ...'"},
      {"start: myRule",
       "lark: line 1, column 8: 'myRule' is neither a rule name (lowercase letters, digits and '_', as in my_rule) "
       "nor a terminal name (uppercase, as in MY_TERMINAL)"},
      {"start: __x",
       "lark: line 1, column 8: '__x' is neither a rule name (lowercase letters, digits and '_', as in my_rule) nor "
       "a terminal name (uppercase, as in MY_TERMINAL)"},
      // Definitions' syntax.
      {"start \"a\"", "lark: line 1, column 7: expected ':' after 'start', found '\"a\"'"},
      {"root ::= \"a\"", "lark: line 1, column 6: '::=' is GBNF: a Lark definition is written 'name: ...'"},
      {"\"a\"", "lark: line 1, column 1: expected a rule or terminal definition ('name: ...'), found '\"a\"'"},
      {"| \"a\"", "lark: line 1, column 1: expected a rule or terminal definition ('name: ...'), found '|'"},
      {"? start: \"a\"",
       "lark: line 1, column 1: rule modifier '?' must stand right before a rule's name, as in '?name: ...'"},
      {"?START: \"a\"",
       "lark: line 1, column 1: rule modifier '?' must stand right before a rule's name, as in '?name: ...'"},
      {"?\?start: \"a\"", "lark: line 1, column 1: unknown rule modifier '?\?' (Lark has ?, !, ?! and !?)"},
      {"start.x: \"a\"", "lark: line 1, column 7: expected a priority number after 'start.', found 'x'"},
      {"start: \"a\" b: \"c\"",
       "lark: line 1, column 13: unexpected ':' (each definition 'name: ...' must begin its own line)"},
      {"start: \"a\" \"b\"\n   \"c\"",
       "lark: line 2, column 4: expected a rule or terminal definition ('name: ...'), found '\"c\"'"},
      {"start: (\"a\"\n \"b\")",
       "lark: line 1, column 8: '(' is not closed on its line (a definition goes on to the next line only when "
       "that line begins with '|')"},
      {"start: [\"a\" \"b\"",
       "lark: line 1, column 8: '[' is not closed on its line (a definition goes on to the "
       "next line only when that line begins with '|')"},
      {"start: (\"a\"]", "lark: line 1, column 12: expected ')', found ']'"},
      {"start: \"a\")", "lark: line 1, column 11: ')' without a matching '('"},
      {"start: \"a\" @", "lark: line 1, column 12: unexpected '@'"},
      {"start: 'a'", "lark: line 1, column 8: string literals use double quotes (\"...\"), not single ones"},
      {"start: \"a\"\r\"b\"", "lark: line 1, column 11: a carriage return (U+000D) must be followed by a line feed"},
      {"start: \"a\" \xE9", "lark: line 1, column 12: invalid UTF-8 (byte 0xE9)"},
      {"start: \"a\"\n%", "lark: line 2, column 1: '%' must begin a directive such as '%import' or '%ignore'"},
      // Quantifiers.
      {"start: \"a\"**",
       "lark: line 1, column 12: a second quantifier '*' on one element: put the quantified element in parentheses"},
      {"start: \"a\"~2?",
       "lark: line 1, column 13: a second quantifier '?' on one element: put the quantified element in parentheses"},
      {"start: * \"a\"", "lark: line 1, column 8: quantifier '*' without an element before it"},
      {"start: \"a\"?b\nb: \"b\"",
       "lark: line 1, column 11: '?b' reads as a rule modifier in Lark: put a space between '?' and the name"},
      {"start: \"a\"~3..2", "lark: line 1, column 15: repeat range ~ 3..2 has its upper bound below its lower bound"},
      {"start: \"a\"~-1", "lark: line 1, column 12: repeat counts cannot be negative"},
      {"start: \"a\"~x", "lark: line 1, column 12: expected a repeat count, found 'x'"},
      {"start: \"a\"~10001", "lark: line 1, column 12: repeat count 10001 is over the limit of 10000"},
      // Strings, ranges and regular expressions.
      {"start: \"\"",
       "lark: line 1, column 8: string \"\": empty string literals are not allowed (Lark has no empty terminals)"},
      {"start: \"abc", "lark: line 1, column 8: string literal is not closed on its line (write \\n for a newline)"},
      {"start: \"\\x4\"", "lark: line 1, column 8: string \"\\x4\": invalid escape: '\\x' needs 2 hex digits"},
      {"start: \"\\U00110000\"",
       "lark: line 1, column 8: string \"\\U00110000\": escape is past U+10FFFF, the last code point"},
      {"start: \"\\ud800\"",
       "lark: line 1, column 8: string \"\\ud800\": escape U+D800 is a surrogate, not a character"},
      {"start: \"caf\xC3\xA9\"i",
       "lark: line 1, column 8: string \"caf\xC3\xA9\"i: a case-insensitive string (\"...\"i) with the non-ASCII "
       "character U+00E9 is not supported: write its cases out, as in (\"a\" | \"A\")"},
      {"start: \"ab\"..\"c\"",
       "lark: line 1, column 8: range \"ab\"..\"c\": a range's ends must be single characters, as in \"a\"..\"z\""},
      {"start: \"z\"..\"a\"",
       "lark: line 1, column 8: range \"z\"..\"a\": range 'z' (U+007A)..'a' (U+0061) is reversed (its first is after "
       "its last)"},
      {"start: \"a\"i..\"c\"", "lark: line 1, column 8: range \"a\"i..\"c\": a range's ends cannot have the 'i' flag"},
      {"start: \"a\"..b", "lark: line 1, column 13: expected a string after '..', found 'b'"},
      {"start: /ab", "lark: line 1, column 8: regular expression is not closed on its line"},
      {"start: /a/i",
       "lark: line 1, column 8: regular expression /a/i: flag 'i' on a regular expression is not supported: write "
       "both cases in the pattern ([aA]), or use a case-insensitive string \"...\"i"},
      {"start: /a b/x",
       "lark: line 1, column 8: regular expression /a b/x: flag 'x' (verbose) on a regular expression is not "
       "supported"},
      {"start: /a/l",
       "lark: line 1, column 8: regular expression /a/l: flag 'l' on a regular expression is not supported"},
      {"start: /^a/",
       "lark: line 1, column 8: regular expression /^a/: anchor '^' is not supported in a Lark terminal (it would "
       "depend on where the terminal stands in the text)"},
      {"start: /a$/",
       "lark: line 1, column 8: regular expression /a$/: anchor '$' is not supported in a Lark terminal (it would "
       "depend on where the terminal stands in the text)"},
      {"start: /a\\Z/",
       "lark: line 1, column 8: regular expression /a\\Z/: anchor '\\Z' is not supported in a Lark terminal (it "
       "would depend on where the terminal stands in the text)"},
      {"start: /a+?/",
       "lark: line 1, column 8: regular expression /a+?/: lazy quantifier '+?' is not supported in a Lark terminal "
       "(Lark's lexer would stop at its shortest match)"},
      {"start: /a{1,3}?/",
       "lark: line 1, column 8: regular expression /a{1,3}?/: lazy quantifier '}?' is not supported in a Lark "
       "terminal (Lark's lexer would stop at its shortest match)"},
      {"start: /(?<!a)b/",
       "lark: line 1, column 8: regular expression /(?<!a)b/: lookbehind '(?<!' at offset 0 is not supported"},
      {"start: /\\x2a/", "lark: line 1, column 8: regular expression /\\x2a/: nothing to repeat at offset 0"},
      // Directives.
      {"start: \"a\"\n%import .other.X",
       "lark: line 2, column 9: only common.lark's terminals can be imported ('%import common.NAME'), not '.'"},
      {"start: X\n%import other.X",
       "lark: line 2, column 9: only common.lark's terminals can be imported ('%import common.NAME'), not 'other'"},
      {"start: X\n%import common.X",
       "lark: line 2, column 16: common.lark has no terminal 'X' (it has CNAME, CPP_COMMENT, CR, C_COMMENT, "
       "DECIMAL, DIGIT, ESCAPED_STRING, FLOAT, HEXDIGIT, INT, LCASE_LETTER, LETTER, LF, NEWLINE, NUMBER, SH_COMMENT, "
       "SIGNED_FLOAT, SIGNED_INT, SIGNED_NUMBER, SQL_COMMENT, UCASE_LETTER, WORD, WS, WS_INLINE)"},
      {"start: ws\n%import common.ws",
       "lark: line 2, column 16: common.lark has no terminal 'ws' (it has CNAME, CPP_COMMENT, CR, C_COMMENT, "
       "DECIMAL, DIGIT, ESCAPED_STRING, FLOAT, HEXDIGIT, INT, LCASE_LETTER, LETTER, LF, NEWLINE, NUMBER, SH_COMMENT, "
       "SIGNED_FLOAT, SIGNED_INT, SIGNED_NUMBER, SQL_COMMENT, UCASE_LETTER, WORD, WS, WS_INLINE)"},
      {"start: X\n%import common.WS -> x",
       "lark: line 2, column 22: a terminal is imported under a terminal name (uppercase), not 'x'"},
      {"start: WS\n%import common (WS INT)",
       "lark: line 2, column 20: expected ',' or ')' in '%import common (...)', found 'INT'"},
      {"start: WS\n%import common",
       "lark: line 2, column 15: expected '.NAME' or '(NAME, ...)' after '%import "
       "common', found the end of the grammar"},
      {"start: \"a\"\n%ignore b\nb: \"b\"",
       "lark: line 2, column 9: rule 'b' cannot be ignored: %ignore takes terminals"},
      {"%declare A\nstart: A",
       "lark: line 1, column 1: '%declare' is not supported: a declared terminal has no definition to match"},
      {"start: \"a\"\n%override start: \"b\"",
       "lark: line 2, column 1: '%override' is not supported: only common.lark's terminals are imported, and they "
       "are used as they are"},
      {"start: \"a\"\n%extend start: \"b\"",
       "lark: line 2, column 1: '%extend' is not supported: only common.lark's terminals are imported, and they are "
       "used as they are"},
      {"start: \"a\"\n%include x",
       "lark: line 2, column 1: unknown directive '%include' (Lark has %import, %ignore, %declare, %override and "
       "%extend)"},
      {"start: \"a\" %ignore \" \"", "lark: line 1, column 12: '%ignore' must begin its own line"},
      // Templates and aliases.
      {"start: pair{\"a\"}\npair{x}: x x", "lark: line 1, column 8: templates ('pair{...}') are not supported"},
      {"start: \"a\"\npair{x}: x x", "lark: line 2, column 1: templates ('pair{...}: ...') are not supported"},
      {"start: \"a\" {\"b\"}",
       "lark: line 1, column 12: '{' without a template name before it (templates are not supported)"},
      {"start: A\nA: \"a\" -> x", "lark: line 2, column 8: aliases ('-> name') are allowed only in rules"},
      {"start: \"a\" -> FOO", "lark: line 1, column 15: expected a lowercase name after '->', found 'FOO'"},
      {"start: (\"a\" -> x) \"b\"",
       "lark: line 1, column 13: an alias ('-> name') inside a group is not supported (Lark takes one only at the "
       "end of a rule's alternative)"},
      // Columns count code points; lines count \n and \r\n.
      {"start: \"\xC3\xA9\xE4\xB8\xAD\" x", "lark: line 1, column 13: rule 'x' is used but not defined"},
      {"start: \"a\"\r\n\r\n  | x", "lark: line 3, column 5: rule 'x' is used but not defined"},
  };
  for (const RefusalCase& c : cases) EXPECT_EQ(Refusal(c.text), c.message) << c.text;
}

TEST(structured_lark, NestingAndRepeatsAreBounded) {
  std::string deep = "start: ";
  for (int i = 0; i < 300; ++i) deep += "(\"a\" ";
  for (int i = 0; i < 300; ++i) deep += ")";
  EXPECT_EQ(Refusal(deep), "lark: line 1, column 1288: groups nested over 256 deep");

  LarkOptions small;
  small.max_repeat = 5;
  EXPECT_EQ(Refusal("start: \"a\"~2..6", small), "lark: line 1, column 15: repeat count 6 is over the limit of 5");
  small.limits.max_symbols = 1000;
  small.max_repeat = 10000;
  const std::string large = Refusal("start: \"a\"\n  | big\nbig: (\"ab\" /[0-9]/)~600", small);
  EXPECT_TRUE(large.starts_with("lark: line 3, column 1: too large (over 1000 symbols")) << large;
}

// "start: T0\nT0: T1 \"x\"\n...\nT{n-1}: Tn \"x\"\nTn: \"y\"\n" with the chain's
// definitions in text order, or in reverse order (each after the one it uses).
// Terminal i's name, appended: GCC 12 warns falsely (-Wrestrict) on "T" + ...
std::string T(int i) {
  std::string name = "T";
  name += std::to_string(i);
  return name;
}

std::string TerminalChain(int n, bool reversed) {
  std::vector<std::string> lines;
  for (int i = 0; i < n; ++i) lines.push_back(T(i) + ": " + T(i + 1) + " \"x\"\n");
  lines.push_back(T(n) + ": \"y\"\n");
  if (reversed) std::reverse(lines.begin(), lines.end());
  std::string text = "start: T0\n";
  for (const std::string& line : lines) text += line;
  return text;
}

TEST(structured_lark, TerminalChainsAreBounded) {
  // The chain's head is named wherever it stands in the text (the walk once
  // missed chains defined leaf first, and a later check then recursed down
  // all of them: a stack overflow at 100,000).
  for (const bool reversed : {false, true}) {
    const std::string message = Refusal(TerminalChain(100000, reversed));
    EXPECT_EQ(message, "lark: line " + std::string(reversed ? "100002" : "2") +
                           ", column 1: terminal 'T0' uses terminals nested 100001 deep (T0 -> T1 -> T2 -> T3 -> T4 "
                           "-> ...), over the limit of 1000");
  }
  // In an %ignore too.
  EXPECT_EQ(Refusal("start: \"a\"\n%ignore T0\n" + TerminalChain(5000, true).substr(10)),
            "lark: line 5003, column 1: terminal 'T0' uses terminals nested 5001 deep (T0 -> T1 -> T2 -> T3 -> T4 -> "
            "...), over the limit of 1000");
  // 1,000 terminals deep is the default limit; the limit is an option.
  const auto at_limit = Compile(TerminalChain(999, true));
  ASSERT_NE(at_limit, nullptr);
  EXPECT_TRUE(Accepts(at_limit, "y" + std::string(999, 'x')));
  LarkOptions small;
  small.max_terminal_depth = 3;
  EXPECT_EQ(Refusal(TerminalChain(3, false), small),
            "lark: line 2, column 1: terminal 'T0' uses terminals nested 4 deep (T0 -> T1 -> T2 -> T3), over the "
            "limit of 3");
  EXPECT_EQ(Refusal(TerminalChain(2, false), small), "");
  // A diamond is as deep as its longest chain, whichever way the walk meets it.
  EXPECT_EQ(Refusal("start: A\nA: B C\nB: C\nC: D\nD: \"d\"", small),
            "lark: line 2, column 1: terminal 'A' uses terminals nested 4 deep (A -> B -> C -> D), over the limit "
            "of 3");
  EXPECT_EQ(Refusal("start: A\nD: \"d\"\nC: D\nB: C\nA: C B", small),
            "lark: line 5, column 1: terminal 'A' uses terminals nested 4 deep (A -> B -> C -> D), over the limit "
            "of 3");
  // A cycle is still named as one, however long.
  std::string cycle = "start: T0\n";
  for (int i = 0; i < 100000; ++i) cycle += T(i) + ": " + T((i + 1) % 100000) + "\n";
  EXPECT_TRUE(Refusal(cycle).starts_with("lark: line 2, column 1: terminal 'T0' is recursive (T0 -> T1 -> T2"));
}

TEST(structured_lark, DeepParenthesesAreRefusedWithoutRecursingDeep) {
  const std::string open(100000, '('), close(100000, ')');
  EXPECT_EQ(Refusal("start: " + open + "\"a\"" + close), "lark: line 1, column 264: groups nested over 256 deep");
  EXPECT_EQ(Refusal("start: A\nA: " + open + "\"a\"" + close),
            "lark: line 2, column 260: groups nested over 256 deep");
  EXPECT_EQ(Refusal("start: " + std::string(100000, '[') + "\"a\"" + std::string(100000, ']')),
            "lark: line 1, column 264: groups nested over 256 deep");
  // In a regular expression, RegexToExpr's own limits refuse them; the
  // message quotes the first 60 code points of a long token.
  EXPECT_EQ(Refusal("start: /" + std::string(1000, '(') + "a" + std::string(1000, ')') + "/"),
            "lark: line 1, column 8: regular expression /" + std::string(59, '(') +
                "...: group nested deeper than 100 at offset 100 is not supported");
  EXPECT_EQ(Refusal("start: /" + std::string(100000, '(') + "a" + std::string(100000, ')') + "/"),
            "lark: line 1, column 8: regular expression /" + std::string(59, '(') +
                "...: pattern of 200001 bytes is over the limit of 65536");
  EXPECT_EQ(Refusal("start: \"" + std::string(100000, 'a') + "\"..\"b\""),
            "lark: line 1, column 8: range \"" + std::string(59, 'a') +
                ".....\"b\": a range's ends must be single characters, as in \"a\"..\"z\"");
}

// lark_fuzz found "start: \"x\" /[^\\s\\S]/": before RegexToExpr refused
// patterns that match nothing, the matcher offered "x" and then refused it.
TEST(structured_lark, RegexesThatMatchNothing) {
  EXPECT_EQ(Refusal("start: \"x\" /[^\\s\\S]/"),
            "lark: line 1, column 12: regular expression /[^\\s\\S]/: the pattern matches no string");
  EXPECT_EQ(Refusal("start: \"x\" A\nA: \"a\" /[^\\w\\W]b/"),
            "lark: line 2, column 8: regular expression /[^\\w\\W]b/: the pattern matches no string");
  // A branch that matches nothing is dropped: every byte offered leads on.
  const auto grammar = Compile("start: \"x\" (/a|[^\\s\\S]/ | \"z\")");
  ASSERT_NE(grammar, nullptr);
  GrammarMatcher matcher(grammar);
  ASSERT_TRUE(matcher.AcceptByte('x'));
  const ByteSet next = matcher.NextBytes();
  EXPECT_EQ(next.Count(), 2);
  EXPECT_TRUE(next.Contains('a') && next.Contains('z'));
  EXPECT_TRUE(Accepts(grammar, "xa"));
  EXPECT_TRUE(Accepts(grammar, "xz"));
}

TEST(structured_lark, BuilderRefusalsArePlacedAtTheirRule) {
  // Left recursion through another rule: Lark's Earley parser takes it; GrammarBuilder does not.
  EXPECT_EQ(Refusal("start: \"x\" | a \"y\"\na: start \"z\""),
            "lark: line 1, column 1: left recursion through start -> a -> start is not supported (only a rule that "
            "starts with itself can be rewritten)");
  // With %ignore too; a definition's place is its name's, after any modifier.
  const std::string with_ignore = Refusal("start: a\n?a: b \"x\" | \"y\"\n?b: a \"z\"\n%ignore \" \"");
  EXPECT_TRUE(with_ignore.starts_with("lark: line 2, column 2: left recursion through a -> b -> a")) << with_ignore;
}

TEST(structured_lark, OtherStartRule) {
  LarkOptions options;
  options.start = "value";
  const auto grammar = Compile("value: \"a\" start\nstart: \"b\"", options);
  ASSERT_NE(grammar, nullptr);
  EXPECT_TRUE(Accepts(grammar, "ab"));
  EXPECT_FALSE(Accepts(grammar, "b"));
  EXPECT_EQ(Refusal("start: \"a\"", options),
            "lark: line 1, column 1: no rule 'value', where matching starts: define 'value: ...' (Lark starts at "
            "'value', not at the first rule)");
}

TEST(structured_lark, IgnoredTerminalsStandBetweenTerminalsNotInside) {
  const auto grammar = Compile(
      "start: NAME \"=\" value\n?value: NAME | \"[\" [value (\",\" value)*] \"]\"\n"
      "NAME: LETTER+ \"_\"?\n%import common.LETTER\n%ignore \" \"\n%ignore \"\\t\"");
  ASSERT_NE(grammar, nullptr);
  for (const char* good : {"a=b", " a = b ", "ab_ =\t[ x , [ ] ,y_ ]\t ", "  a=[]", "a=b  "}) {
    EXPECT_TRUE(Accepts(grammar, good)) << good;
  }
  for (const char* bad : {"a b=c", "ab _=c", "a=[x,,y]", "a =", ""}) EXPECT_FALSE(Accepts(grammar, bad)) << bad;

  // Without %ignore, nothing is skipped.
  const auto strict = Compile("start: \"a\" \"b\"");
  ASSERT_NE(strict, nullptr);
  EXPECT_TRUE(Accepts(strict, "ab"));
  EXPECT_FALSE(Accepts(strict, "a b"));
}

TEST(structured_lark, PrioritiesAliasesAndModifiersChangeNothing) {
  const auto plain = Compile("start: a | b\na: \"x\" \"y\"\nb: B\nB: \"z\"");
  const auto decorated = Compile("?start: a | b -> bee\n!a.2: \"x\" \"y\" -> pair\n?!b.-1: B\nB.3: \"z\"");
  ASSERT_NE(plain, nullptr);
  ASSERT_NE(decorated, nullptr);
  for (const char* text : {"xy", "z", "x", "bee", "pair", ""}) {
    EXPECT_EQ(Accepts(plain, text), Accepts(decorated, text)) << text;
  }
}

TEST(structured_lark, EveryCommonTerminalImports) {
  const std::string names(LarkCommonNames());
  int count = 0;
  for (size_t start = 0; start < names.size();) {
    size_t end = names.find(", ", start);
    if (end == std::string::npos) end = names.size();
    const std::string name = names.substr(start, end - start);
    EXPECT_FALSE(LarkCommonPattern(name).empty()) << name;
    EXPECT_NE(Compile("start: " + name + "\n%import common." + name), nullptr) << name;
    ++count;
    start = end + 2;
  }
  EXPECT_EQ(count, 24);
}

TEST(structured_lark, DialectComesFromTheText) {
  struct DialectCase {
    const char* text;
    GrammarDialect dialect;
  };
  const DialectCase cases[] = {
      {"start: \"a\"", GrammarDialect::kLark},
      {"?start: value\nvalue: \"a\"", GrammarDialect::kLark},
      {"  !start.2 : \"a\"", GrammarDialect::kLark},
      {"pair{x}: x\nstart: pair{\"a\"}", GrammarDialect::kLark},
      {"// comment ::= here\nstart: \"::=\"", GrammarDialect::kLark},
      {"# comment ::= here\nstart: \"a\"", GrammarDialect::kLark},
      {"start: \"a\" # ::=", GrammarDialect::kLark},
      {"root ::= \"a\"", GrammarDialect::kGbnf},
      {"root ::= \"a:b\"\nvalue: \"x\"", GrammarDialect::kGbnf},  // ambiguous: GBNF refuses the Lark line
      {"root::=x\nx ::= \"a\"", GrammarDialect::kGbnf},
      {"", GrammarDialect::kGbnf},
      {"%import common.WS", GrammarDialect::kGbnf},  // no Lark definition
      {"\"a\": b", GrammarDialect::kGbnf},
  };
  for (const DialectCase& c : cases) EXPECT_EQ(DetectGrammarDialect(c.text), c.dialect) << c.text;

  auto lark = GrammarFromText("start: \"a\"+\n");
  ASSERT_TRUE(lark.ok()) << lark.status().ToString();
  const auto lark_grammar = std::make_shared<const Grammar>(std::move(*lark));
  EXPECT_TRUE(Accepts(lark_grammar, "aaa"));

  auto gbnf = GrammarFromText("root ::= \"a\"+\n");
  ASSERT_TRUE(gbnf.ok()) << gbnf.status().ToString();
  const auto gbnf_grammar = std::make_shared<const Grammar>(std::move(*gbnf));
  EXPECT_TRUE(Accepts(gbnf_grammar, "aaa"));

  auto mixed = GrammarFromText("root ::= value\nvalue: \"a\"");
  ASSERT_FALSE(mixed.ok());
  EXPECT_EQ(mixed.status().message(),
            "ebnf: line 2, column 1: 'value:' looks like Lark, which a GBNF grammar cannot mix in: write GBNF rules "
            "'name ::= ...' starting from 'root ::= ...', or the whole grammar in Lark (without '::=')");
  auto empty = GrammarFromText("");
  ASSERT_FALSE(empty.ok());
  EXPECT_EQ(empty.status().message(), "ebnf: line 1, column 1: the grammar has no rules: it needs 'root ::= ...'");
  auto lark_error = GrammarFromText("start: undefined_rule");
  ASSERT_FALSE(lark_error.ok());
  EXPECT_EQ(lark_error.status().message(), "lark: line 1, column 8: rule 'undefined_rule' is used but not defined");
}

}  // namespace
}  // namespace pagoda::structured
