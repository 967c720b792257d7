// Every schema the converter cannot express exactly is refused, naming the
// keyword and its JSON pointer; nothing is silently ignored.
#include <gtest/gtest.h>

#include <string>

#include "pagoda/structured/json_schema_to_grammar.h"

namespace pagoda::structured {
namespace {

// The status of converting `schema`, which must fail with `code` and a
// message holding every one of `parts`.
void ExpectRefused(const std::string& schema, StatusCode code, std::initializer_list<std::string> parts,
                   const JsonSchemaOptions& options = {}) {
  const auto grammar = JsonSchemaToGrammar(schema, options);
  ASSERT_FALSE(grammar.ok()) << schema;
  EXPECT_EQ(grammar.status().code(), code) << schema << ": " << grammar.status().ToString();
  for (const std::string& part : parts) {
    EXPECT_NE(grammar.status().message().find(part), std::string::npos)
        << schema << ": '" << grammar.status().message() << "' lacks '" << part << "'";
  }
}

void ExpectInvalid(const std::string& schema, std::initializer_list<std::string> parts,
                   const JsonSchemaOptions& options = {}) {
  ExpectRefused(schema, StatusCode::kInvalidArgument, parts, options);
}

TEST(structured_json_schema_refusals, UnsupportedKeywordsAreNamedWithTheirPointer) {
  for (const char* keyword :
       {"not", "if", "then", "else", "patternProperties", "propertyNames", "minProperties", "maxProperties",
        "uniqueItems", "contains", "minContains", "maxContains", "dependentRequired",
        "dependentSchemas", "dependencies", "unevaluatedProperties", "unevaluatedItems", "additionalItems",
        "$anchor", "$dynamicRef", "$dynamicAnchor", "$recursiveRef", "$vocabulary", "contentEncoding",
        "contentMediaType", "contentSchema", "discriminator", "x-custom", "Type"}) {
    const std::string value = std::string(keyword) == "not" ? "{}" : "1";
    ExpectInvalid(std::string(R"({"type": "object", ")") + keyword + "\": " + value + "}",
                  {std::string("'") + keyword + "'", std::string("#/") + keyword});
    ExpectInvalid(std::string(R"({"properties": {"a/b": {"items": {")") + keyword + "\": " + value + "}}}}",
                  {std::string("'") + keyword + "'", std::string("#/properties/a~1b/items/") + keyword});
  }
}

TEST(structured_json_schema_refusals, PatternsTheRegexFrontEndRefusesAreNamed) {
  ExpectInvalid(R"({"type": "object", "properties": {"code": {"type": "string", "pattern": "(a)\\1"}}})",
                {"'pattern'", "#/properties/code/pattern"});
  ExpectInvalid(R"({"type": "string", "pattern": "^a|b$"})", {"'pattern'", "top-level alternatives"});
  // Where no string can appear, the pattern has nothing to constrain.
  EXPECT_TRUE(JsonSchemaToGrammar(R"({"type": "integer", "pattern": "^1$"})").ok());
}

TEST(structured_json_schema_refusals, RangesThatCannotBeExactAreRefused) {
  ExpectInvalid(R"({"type": "integer", "minimum": 1e30})", {"minimum", "64-bit"});
  ExpectInvalid(R"({"type": "integer", "maximum": 18446744073709551615})", {"maximum", "64-bit"});
  ExpectInvalid(R"({"type": "integer", "exclusiveMinimum": 9223372036854775807})", {"exclusiveMinimum"});
  ExpectInvalid(R"({"type": "integer", "exclusiveMinimum": true})", {"exclusiveMinimum must be a number"});
  // On numbers with fractions, an integer bound must be one a double holds.
  ExpectInvalid(R"({"type": "number", "maximum": 9007199254740993})", {"maximum", "2^53", "#/maximum"});
}

TEST(structured_json_schema_refusals, MultipleOfOutsideTheSupportedSubset) {
  ExpectInvalid(R"({"type": "integer", "multipleOf": 0})",
                {"multipleOf must be a number greater than 0", "#/multipleOf"});
  ExpectInvalid(R"({"type": "integer", "multipleOf": -3})", {"multipleOf must be a number greater than 0"});
  ExpectInvalid(R"({"type": "integer", "multipleOf": "2"})", {"multipleOf must be a number"});
  ExpectInvalid(R"({"type": "integer", "multipleOf": 4611686018427387905})", {"multipleOf over 2^62"});
  ExpectInvalid(R"({"type": "number", "multipleOf": 0.5})", {"multipleOf that is not an integer", "#/multipleOf"});
  // The remainder automaton has one state per unit: large divisors only
  // over ranges short enough to list.
  ExpectInvalid(R"({"type": "integer", "multipleOf": 1001})", {"multipleOf 1001", "1000", "#/multipleOf"});
  ExpectInvalid(R"({"type": "integer", "multipleOf": 5000, "minimum": 0, "maximum": 6000000})", {"multipleOf 5000"});
  EXPECT_TRUE(JsonSchemaToGrammar(R"({"type": "integer", "multipleOf": 5000, "minimum": 0, "maximum": 5000000})").ok());
  EXPECT_TRUE(JsonSchemaToGrammar(R"({"type": "integer", "multipleOf": 1000, "minimum": -5})").ok());
  ExpectInvalid(R"({"allOf": [{"multipleOf": 3074457345618258602}, {"multipleOf": 4}]})", {"least common multiple"});
  // No multiple in range at all.
  ExpectInvalid(R"({"type": "integer", "multipleOf": 7, "minimum": 1, "maximum": 6})", {"no JSON value satisfies"});
}

TEST(structured_json_schema_refusals, NullableNeedsATypeBesideIt) {
  ExpectInvalid(R"({"nullable": true})", {"nullable without \"type\"", "#/nullable"});
  ExpectInvalid(R"({"anyOf": [{"type": "string"}], "nullable": true})", {"nullable"});
  ExpectInvalid(R"({"type": "string", "nullable": "yes"})", {"nullable must be a boolean"});
  EXPECT_TRUE(JsonSchemaToGrammar(R"({"nullable": false})").ok());
}

TEST(structured_json_schema_refusals, StringsTheGrammarCannotIntersect) {
  ExpectInvalid(R"({"type": "string", "format": "hostname"})", {"format 'hostname'", "#/format"});
  ExpectInvalid(R"({"type": "string", "format": "iri"})", {"format 'iri'", "#/format"});
  ExpectInvalid(R"({"type": "string", "format": "date", "maxLength": 12})", {"maxLength", "#/maxLength"});
  ExpectInvalid(R"({"allOf": [{"format": "date"}, {"format": "uuid"}]})", {"format", "#/allOf/1/format"});
  ExpectInvalid(R"({"type": "string", "minLength": 2000000})", {"minLength", "too large"});
}

TEST(structured_json_schema_refusals, CombinationsThatAreNotExactMergesAreRefused) {
  ExpectInvalid(R"({"enum": ["a", "bb"], "minLength": 2})", {"'minLength' beside enum", "#/minLength"});
  ExpectInvalid(R"({"const": {"a": 1}, "properties": {"a": {}}})", {"'properties'", "#/properties"});
  ExpectInvalid(R"({"anyOf": [{}], "oneOf": [{}]})", {"beside another anyOf/oneOf"});
  ExpectInvalid(R"({"allOf": [{"anyOf": [{"type": "string"}]}, {"anyOf": [{"type": "null"}]}]})",
                {"#/allOf/1/anyOf"});
  ExpectInvalid(R"({"type": "array", "items": [{"type": "string"}]})", {"prefixItems", "#/items"});
}

TEST(structured_json_schema_refusals, ReferencesOutsideTheSchemaOrNowhere) {
  ExpectInvalid(R"({"$ref": "https://example.com/schema.json"})", {"$ref", "#/$ref"});
  ExpectInvalid(R"({"$ref": "other.json#/a"})", {"$ref"});
  ExpectInvalid(R"({"$defs": {"a": {"$anchor": "x"}}, "$ref": "#x"})", {"anchors"});
  ExpectInvalid(R"({"properties": {"a": {"$ref": "#/$defs/missing"}}})", {"names nothing", "#/properties/a/$ref"});
  ExpectInvalid(R"({"$ref": "#/$defs/%zz"})", {"%-escape"});
  ExpectInvalid(R"({"$ref": 5})", {"must be a string"});
  ExpectInvalid(R"({"$defs": {"a": {"$id": "a.json", "type": "string"}}, "$ref": "#/$defs/a"})",
                {"$id", "#/$defs/a/$id"});
}

TEST(structured_json_schema_refusals, CyclesThatReadNoInput) {
  ExpectInvalid(R"({"$ref": "#"})", {"$ref cycle"});
  ExpectInvalid(R"({"anyOf": [{"$ref": "#"}, {"type": "null"}]})", {"$ref cycle", "#/anyOf/0/$ref"});
  ExpectInvalid(R"({"$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"anyOf": [{"$ref": "#/$defs/a"}]}}, "$ref": "#/$defs/a"})",
                {"$ref cycle"});
  // A $ref beside other keywords is inlined; inlining itself never ends.
  ExpectInvalid(R"({"$defs": {"a": {"$ref": "#/$defs/a", "minLength": 1}}, "$ref": "#/$defs/a", "type": "string"})",
                {"nested over"});
  // Recursion under a bracket is fine...
  EXPECT_TRUE(JsonSchemaToGrammar(R"({"type": "array", "items": {"$ref": "#"}})").ok());
  // ...unless every value must hold another one forever.
  ExpectInvalid(R"({"$defs": {"a": {"type": "object", "properties": {"x": {"$ref": "#/$defs/a"}}, "required": ["x"]}},
                    "$ref": "#/$defs/a"})",
                {"no finite JSON value"});
}

TEST(structured_json_schema_refusals, SchemasNothingSatisfies) {
  for (const char* schema :
       {"false", R"({"enum": []})", R"({"type": "string", "minLength": 5, "maxLength": 2})",
        R"({"type": "integer", "minimum": 5, "maximum": 1})", R"({"type": "integer", "exclusiveMinimum": 1, "exclusiveMaximum": 2})",
        R"({"type": "array", "minItems": 3, "maxItems": 2})", R"({"type": "object", "properties": {"a": false}, "required": ["a"]})",
        R"({"allOf": [{"type": "string"}, {"type": "integer"}]})", R"({"type": "string", "enum": [1, null]})",
        R"({"anyOf": [false, {"not_a_type_list": 1, "type": []}]})"}) {
    const auto grammar = JsonSchemaToGrammar(schema);
    EXPECT_EQ(grammar.status().code(), StatusCode::kInvalidArgument) << schema;
  }
  ExpectInvalid("false", {"no JSON value satisfies"});
  // Strict mode: an object schema allows only the properties it declares.
  ExpectInvalid(R"({"type": "object", "required": ["x"]})", {"no JSON value satisfies"});
  JsonSchemaOptions lenient;
  lenient.strict = false;
  EXPECT_TRUE(JsonSchemaToGrammar(R"({"type": "object", "required": ["x"]})", lenient).ok());
}

TEST(structured_json_schema_refusals, MalformedKeywordValues) {
  ExpectInvalid(R"({"type": "strin"})", {"type must be", "#/type"});
  ExpectInvalid(R"({"type": []})", {"type must be"});
  ExpectInvalid(R"({"minLength": -1})", {"minLength must be a non-negative integer", "#/minLength"});
  ExpectInvalid(R"({"maxItems": 1.5})", {"maxItems must be a non-negative integer"});
  ExpectInvalid(R"({"required": "a"})", {"required must be an array"});
  ExpectInvalid(R"({"required": [1]})", {"required must be an array"});
  ExpectInvalid(R"({"properties": []})", {"properties must be an object"});
  ExpectInvalid(R"({"properties": {"a": 1}})", {"#/properties/a"});
  ExpectInvalid(R"({"additionalProperties": "no"})", {"additionalProperties must be"});
  ExpectInvalid(R"({"enum": {}})", {"enum must be an array"});
  ExpectInvalid(R"({"anyOf": []})", {"anyOf must be a non-empty array"});
  ExpectInvalid(R"({"allOf": {}})", {"allOf must be a non-empty array"});
  ExpectInvalid(R"({"prefixItems": {}})", {"prefixItems must be an array"});
  ExpectInvalid(R"({"format": 1})", {"format must be a string"});
  ExpectInvalid(R"({"$defs": []})", {"$defs must be an object"});
  ExpectInvalid(R"(["type", "string"])", {"must be an object or a boolean"});
  ExpectInvalid(R"({"type": "string",})", {"not valid JSON"});
  ExpectInvalid("", {"not valid JSON"});
}

TEST(structured_json_schema_refusals, DepthAndSizeLimits) {
  std::string deep = R"({"type": "string"})";
  for (int i = 0; i < 200; ++i) deep = R"({"type": "array", "items": )" + deep + "}";
  ExpectInvalid(deep, {"nests over 128 deep"});
  JsonSchemaOptions shallow;
  shallow.max_depth = 300;
  EXPECT_TRUE(JsonSchemaToGrammar(deep, shallow).ok());

  std::string wide = R"({"type": "object", "properties": {)";
  for (int i = 0; i < 200; ++i) wide += (i ? ", " : "") + std::string("\"p") + std::to_string(i) + R"(": {"type": "string"})";
  wide += "}}";
  JsonSchemaOptions small;
  small.limits.max_symbols = 2000;
  ExpectInvalid(wide, {"too large"}, small);
  EXPECT_TRUE(JsonSchemaToGrammar(wide).ok());

  ExpectInvalid(R"({"type": "array", "items": {}, "minItems": 4000000000})", {"minItems or maxItems too large"});
  ExpectInvalid(R"({"type": "array", "items": {"type": "object", "properties": {"a": {}}}, "maxItems": 900000})",
                {"too large"});
}

TEST(structured_json_schema_refusals, BadOptions) {
  JsonSchemaOptions options;
  options.max_whitespace = -2;
  EXPECT_EQ(JsonSchemaToGrammar("{}", options).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(AnyJsonGrammar(options).status().code(), StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace pagoda::structured
