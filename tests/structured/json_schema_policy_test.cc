// The places where the JSON Schema grammar is deliberately stricter than
// JSON Schema (property order, strict mode, canonical spellings), and that
// generation through it can always finish.
#include <gtest/gtest.h>

#include <memory>
#include <random>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "grammar_test_util.h"
#include "pagoda/structured/json_schema_to_grammar.h"
#include "pagoda/structured/token_trie.h"

namespace pagoda::structured {
namespace {

using testing::Accepts;

std::shared_ptr<const Grammar> Schema(const std::string& schema, bool strict = true) {
  JsonSchemaOptions options;
  options.strict = strict;
  auto grammar = JsonSchemaToGrammar(schema, options);
  EXPECT_TRUE(grammar.ok()) << schema << ": " << grammar.status().ToString();
  return grammar.ok() ? std::make_shared<const Grammar>(std::move(*grammar)) : nullptr;
}

TEST(structured_json_schema_policy, PropertiesComeInSchemaOrderThenAdditionalOnes) {
  const auto grammar = Schema(R"({"type": "object", "properties": {"b": {"type": "integer"}, "a": {"type": "integer"}},
                                   "additionalProperties": {"type": "string"}})");
  ASSERT_NE(grammar, nullptr);
  EXPECT_TRUE(Accepts(grammar, R"({"b":1,"a":2})"));
  EXPECT_TRUE(Accepts(grammar, R"({"b":1,"a":2,"z":"x","c":"y"})"));
  EXPECT_TRUE(Accepts(grammar, R"({"a":2,"z":"x"})"));
  EXPECT_FALSE(Accepts(grammar, R"({"a":2,"b":1})"));      // valid JSON Schema, not schema order
  EXPECT_FALSE(Accepts(grammar, R"({"z":"x","b":1})"));    // additional before declared
  EXPECT_FALSE(Accepts(grammar, R"({"b":1,"b":1})"));      // a declared name twice
  EXPECT_FALSE(Accepts(grammar, R"({"b":1,"a":"x"})"));
}

TEST(structured_json_schema_policy, AdditionalKeysAreNoneOfTheDeclaredNamesInAnySpelling) {
  const auto grammar = Schema(R"({"type": "object", "properties": {"a": {"type": "integer"}, "é/": {"type": "null"}},
                                   "additionalProperties": {"type": "string"}})");
  ASSERT_NE(grammar, nullptr);
  EXPECT_TRUE(Accepts(grammar, R"({"b":"x"})"));
  EXPECT_TRUE(Accepts(grammar, R"({"\u0062":"x"})"));  // "b", escaped
  EXPECT_TRUE(Accepts(grammar, R"({"aa":"x","":"y","\u00e9":"z","é\/x":"w"})"));
  EXPECT_FALSE(Accepts(grammar, R"({"a":"x"})"));
  EXPECT_FALSE(Accepts(grammar, R"({"\u0061":"x"})"));        // "a" under another spelling
  EXPECT_FALSE(Accepts(grammar, R"({"\u00E9\/":"x"})"));      // "é/" likewise
  EXPECT_FALSE(Accepts(grammar, "{\"\xC3\xA9\\/\":\"x\"}"));  // and again
}

TEST(structured_json_schema_policy, StrictModeFollowsXgrammar) {
  const char* object = R"({"type": "object", "properties": {"a": {"type": "integer"}}})";
  EXPECT_FALSE(Accepts(Schema(object), R"({"a":1,"b":2})"));
  EXPECT_TRUE(Accepts(Schema(object, false), R"({"a":1,"b":[2,{"c":null}]})"));
  EXPECT_TRUE(Accepts(Schema(R"({"type": "array"})"), "[]"));
  EXPECT_FALSE(Accepts(Schema(R"({"type": "array"})"), "[1]"));
  EXPECT_TRUE(Accepts(Schema(R"({"type": "array"})", false), R"([1,"a",[]])"));
  const char* tuple = R"({"type": "array", "prefixItems": [{"type": "integer"}]})";
  EXPECT_FALSE(Accepts(Schema(tuple), "[1,2]"));
  EXPECT_TRUE(Accepts(Schema(tuple, false), R"([1,"x"])"));
  // Strict mode applies to object and array schemas only: {} is any value.
  EXPECT_TRUE(Accepts(Schema("{}"), R"({"a":[1,{"b":2}]})"));
}

TEST(structured_json_schema_policy, CanonicalSpellings) {
  EXPECT_TRUE(Accepts(Schema(R"({"type": "integer"})"), "-0"));
  EXPECT_FALSE(Accepts(Schema(R"({"type": "integer"})"), "1.0"));  // an integer to jsonschema
  EXPECT_FALSE(Accepts(Schema(R"({"type": "integer"})"), "1e2"));
  const auto slash = Schema(R"({"enum": ["a/b", 1.5, {"k": [true]}]})");
  EXPECT_TRUE(Accepts(slash, R"("a/b")"));
  EXPECT_FALSE(Accepts(slash, R"("a\/b")"));
  EXPECT_TRUE(Accepts(slash, "1.5"));
  EXPECT_FALSE(Accepts(slash, "1.50"));
  EXPECT_TRUE(Accepts(slash, "{ \"k\" : [ true ] }"));  // whitespace as anywhere else
  const auto uuid = Schema(R"({"type": "string", "format": "uuid"})");
  EXPECT_TRUE(Accepts(uuid, R"("123e4567-E89B-12d3-a456-426614174000")"));
  EXPECT_FALSE(Accepts(uuid, R"("{123e4567-e89b-12d3-a456-426614174000}")"));
  EXPECT_FALSE(Accepts(uuid, R"("123e4567e89b12d3a456426614174000")"));
}

TEST(structured_json_schema_policy, OneOfIsAnyOf) {
  // Documented: overlapping branches are not told apart ("5" matches both).
  const auto grammar = Schema(R"({"oneOf": [{"type": "integer"}, {"type": "number"}]})");
  EXPECT_TRUE(Accepts(grammar, "5"));
  EXPECT_TRUE(Accepts(grammar, "5.5"));
}

TEST(structured_json_schema_policy, RecursionThroughRefs) {
  const auto list = Schema(R"({"$defs": {"node": {"type": "object", "properties": {"v": {"type": "integer"},
                               "next": {"anyOf": [{"$ref": "#/$defs/node"}, {"type": "null"}]}}, "required": ["v", "next"]}},
                               "$ref": "#/$defs/node"})");
  ASSERT_NE(list, nullptr);
  std::string text = "null";
  for (int i = 0; i < 200; ++i) text = R"({"v":)" + std::to_string(i) + R"(,"next":)" + text + "}";
  EXPECT_TRUE(Accepts(list, text));
  EXPECT_FALSE(Accepts(list, text.substr(1)));
}

// A wide object: `required` lists the first `required` of `n` properties.
std::string WideObject(int n, int required, std::string* text) {
  std::string schema = R"({"type": "object", "properties": {)";
  std::string names;
  *text = "{";
  for (int i = 0; i < n; ++i) {
    const std::string name = "\"p" + std::to_string(i) + "\"";
    schema += (i ? ", " : "") + name + R"(: {"type": "integer"})";
    *text += (i ? "," : "") + name + ":" + std::to_string(i);
    if (i < required) names += (i ? ", " : "") + name;
  }
  *text += "}";
  return schema + "}, \"required\": [" + names + "]}";
}

TEST(structured_json_schema_policy, WideSchemasCompileInLinearTime) {
  // 20,000 properties: nlohmann's ordered_json parser and fixed points that
  // sweep every rule until nothing changes were quadratic here (minutes).
  std::string text;
  const auto grammar = Schema(WideObject(20000, 20000, &text));
  ASSERT_NE(grammar, nullptr);
  EXPECT_TRUE(Accepts(grammar, text));
  EXPECT_FALSE(Accepts(grammar, R"({"p0":0})"));
  // Optional properties: the state before a key holds a parse stack for each
  // property that may come next, so runs of them stay under the matcher's
  // 4,096 stacks (documented).
  const auto optional = Schema(WideObject(3000, 0, &text));
  ASSERT_NE(optional, nullptr);
  EXPECT_TRUE(Accepts(optional, R"({"p2999":1})"));
  EXPECT_TRUE(Accepts(optional, R"({"p3":1,"p2999":1})"));
  EXPECT_FALSE(Accepts(optional, R"({"p2999":1,"p3":1})"));
}

// Random walks through the grammar: every state reached can still finish,
// and what finishes is JSON that nlohmann parses.
TEST(structured_json_schema_policy, EveryStateCanFinish) {
  const char* schemas[] = {
      R"({"type": "object", "properties": {"id": {"type": "integer", "minimum": -5, "maximum": 300},
          "name": {"type": "string", "maxLength": 4}, "when": {"type": "string", "format": "date-time"},
          "tags": {"type": "array", "items": {"enum": ["a", "b\n"]}, "maxItems": 3},
          "extra": {"anyOf": [{"type": "null"}, {"$ref": "#"}]}}, "required": ["id"],
          "additionalProperties": {"type": "boolean"}})",
      R"({"$defs": {"t": {"type": "object", "properties": {"x": {"$ref": "#/$defs/t"}, "y": {"type": "null"}}}},
          "type": "array", "items": {"$ref": "#/$defs/t"}})",
      R"({"$defs": {"a": {"type": "object", "properties": {"x": {"$ref": "#/$defs/a"}}, "required": ["x"]}},
          "anyOf": [{"$ref": "#/$defs/a"}, {"type": "integer"}]})",  // the object branch has no finite value
  };
  std::mt19937 rng(7);
  for (const char* schema : schemas) {
    const auto grammar = Schema(schema);
    ASSERT_NE(grammar, nullptr);
    int finished = 0;
    for (int walk = 0; walk < 200; ++walk) {
      GrammarMatcher matcher(grammar);
      std::string text;
      for (int step = 0; step < 400 && matcher.CanContinue(); ++step) {
        const ByteSet next = matcher.NextBytes();
        ASSERT_FALSE(next.Empty() && !matcher.IsAccepting()) << schema << " stuck after " << text;
        if (matcher.IsAccepting() && rng() % 8 == 0) break;
        std::vector<uint8_t> bytes;
        for (int b = 0; b < 256; ++b) {
          if (next.Contains(static_cast<uint8_t>(b))) bytes.push_back(static_cast<uint8_t>(b));
        }
        if (bytes.empty()) break;
        // Prefer closing brackets and quotes now and then, so walks end.
        uint8_t byte = bytes[rng() % bytes.size()];
        for (const uint8_t closer : {'}', ']', '"', 'n'}) {
          if (next.Contains(closer) && rng() % 3 == 0) byte = closer;
        }
        ASSERT_TRUE(matcher.AcceptByte(byte));
        text += static_cast<char>(byte);
      }
      if (matcher.IsAccepting()) {
        ++finished;
        EXPECT_FALSE(nlohmann::json::parse(text, nullptr, false).is_discarded()) << text;
      }
    }
    EXPECT_GT(finished, 10) << schema;
  }
}

TEST(structured_json_schema_policy, TokenMasksMatchTryingEachToken) {
  const auto grammar = Schema(R"({"type": "object", "properties": {"n": {"type": "integer", "minimum": 0, "maximum": 42},
                                   "s": {"type": "string", "format": "date"}, "b": {"type": "boolean"}},
                                   "required": ["n", "s"]})");
  ASSERT_NE(grammar, nullptr);
  std::vector<std::string> vocab;
  for (int b = 0; b < 256; ++b) vocab.push_back(std::string(1, static_cast<char>(b)));
  for (const char* piece : {"{\"", "\":", "\"n", "\"s", "\"b\":", "true", "false", "tr", "42", "4", "20", "2024",
                            "-02-", "29", "\",", "\"}", " \"", ",\n  ", "}\n", "null", "-1"}) {
    vocab.push_back(piece);
  }
  const TokenTrie trie(vocab);
  const std::string text = R"({"n": 42, "s": "2024-02-29", "b": true})";
  GrammarMatcher matcher(grammar);
  for (size_t i = 0; i <= text.size(); ++i) {
    TokenBitmask mask(trie.vocab_size());
    matcher.FillNextTokenMask(trie, &mask);
    for (size_t id = 0; id < vocab.size(); ++id) {
      const bool allowed = matcher.AcceptBytes(vocab[id]);
      if (allowed) matcher.RollbackTo(i);
      ASSERT_EQ(allowed, mask.Test(static_cast<int32_t>(id))) << "after " << text.substr(0, i) << ": " << vocab[id];
    }
    if (i < text.size()) {
      ASSERT_TRUE(matcher.AcceptByte(static_cast<uint8_t>(text[i]))) << text.substr(0, i + 1);
    }
  }
  EXPECT_TRUE(matcher.IsAccepting());
}

// pattern searches the decoded string (JSON Schema's semantics); the
// anchors it has pin its ends, and matched quotes and backslashes are
// spelled escaped.
TEST(structured_json_schema_policy, PatternsSearchTheDecodedString) {
  const auto anchored = Schema(R"({"type": "string", "pattern": "^[A-Z]{2}-[0-9]+$"})");
  EXPECT_TRUE(Accepts(anchored, R"("AB-12")"));
  EXPECT_FALSE(Accepts(anchored, R"("xAB-12")"));
  EXPECT_FALSE(Accepts(anchored, R"("AB-12x")"));
  const auto search = Schema(R"({"type": "string", "pattern": "ab"})");
  EXPECT_TRUE(Accepts(search, R"("xxaby")"));
  EXPECT_TRUE(Accepts(search, R"("ab")"));
  EXPECT_FALSE(Accepts(search, R"("a-b")"));
  const auto quoted = Schema(R"({"type": "string", "pattern": "^say \"hi\\\\\"$"})");
  EXPECT_TRUE(Accepts(quoted, R"("say \"hi\\\"")"));
  EXPECT_FALSE(Accepts(quoted, R"("say "hi\"")"));
  const auto start_only = Schema(R"({"type": "string", "pattern": "^id_"})");
  EXPECT_TRUE(Accepts(start_only, R"("id_42")"));
  EXPECT_FALSE(Accepts(start_only, R"("my_id_42")"));
}

}  // namespace
}  // namespace pagoda::structured
