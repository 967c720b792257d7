// JSON Schema (draft 2020-12) as a grammar: vLLM's structured_outputs.json
// and OpenAI's response_format {type: json_schema}; and any JSON object,
// for structured_outputs.json_object and response_format {type:
// json_object}. The grammar's sentences are JSON texts that the schema
// accepts, spelled in a fixed layout:
//
// - Properties come in the order the schema lists them (as xgrammar
//   generates them); additional properties, where allowed, after those.
// - Whitespace: each gap between tokens holds at most `max_whitespace`
//   bytes of ' ', '\n', '\t'; none before or after the whole value.
// - Integers are written without fraction or exponent, numbers under a
//   bound without exponent (json_number_bounds.h), multipleOf values as
//   integers; enum and const values in their canonical spelling
//   (json_string_chars.h); formats as json_string_formats.h says.
//
// A keyword the grammar cannot express exactly is refused, never ignored:
// INVALID_ARGUMENT naming the keyword and its JSON pointer ("pattern" is
// UNIMPLEMENTED until the regex front end lands). docs/architecture.md,
// "Structured outputs", lists what is supported.
#pragma once

#include <string>
#include <string_view>

#include "pagoda/base/status.h"
#include "pagoda/structured/grammar.h"
#include "pagoda/structured/grammar_builder.h"
#include "pagoda/structured/json_grammar_primitives.h"

namespace pagoda::structured {

struct JsonSchemaOptions {
  JsonLayout layout() const { return JsonLayout{max_whitespace, whitespace, item_separator, key_separator}; }

  static constexpr int kUnboundedWhitespace = -1;

  // The most whitespace bytes in one gap between tokens; 0 gives compact
  // JSON, kUnboundedWhitespace any run (xgrammar's any_whitespace). Bounded
  // by default: a small model can otherwise emit whitespace forever. 16
  // keeps pretty-printing with 2-space indents 7 levels deep.
  int max_whitespace = 16;
  // Set: each gap between tokens is this instead (vLLM's
  // whitespace_pattern), and max_whitespace does not apply.
  ExprPtr whitespace;
  // What separates items and a key from its value, before any gap:
  // xgrammar's `separators`. With max_whitespace 0, ", " and ": " are
  // xgrammar's any_whitespace=False.
  std::string item_separator = ",";
  std::string key_separator = ":";
  // xgrammar's strict_mode (its default, and vLLM's): an object schema
  // without additionalProperties allows no other properties, and an array
  // schema without items no items past prefixItems (so {"type": "array"}
  // is only []). false follows JSON Schema: both default to any value.
  bool strict = true;
  // The schema document may nest JSON values this deep, and $ref/allOf
  // chains that inline schemas may go this deep.
  int max_depth = 128;
  GrammarLimits limits;
};

// The grammar of the JSON texts `schema_json` accepts; its root rule is
// "root". INVALID_ARGUMENT for text that is not JSON, a schema that uses
// an unsupported keyword (named with its JSON pointer), one no value
// satisfies, and one over the depth or grammar limits.
StatusOr<Grammar> JsonSchemaToGrammar(std::string_view schema_json, const JsonSchemaOptions& options = {});

// Any JSON object (json_object mode), in the same layout.
StatusOr<Grammar> AnyJsonGrammar(const JsonSchemaOptions& options = {});

}  // namespace pagoda::structured
