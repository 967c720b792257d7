#include "pagoda/structured/json_schema_to_grammar.h"

#include "pagoda/structured/json_grammar_primitives.h"
#include "pagoda/structured/json_schema_converter.h"
#include "pagoda/structured/json_schema_parse.h"

namespace pagoda::structured {
namespace {

Status CheckOptions(const JsonSchemaOptions& options) {
  if (options.max_whitespace < JsonSchemaOptions::kUnboundedWhitespace) {
    return InvalidArgumentError("JSON schema: max_whitespace must be >= 0, or kUnboundedWhitespace");
  }
  if (options.max_depth < 1) return InvalidArgumentError("JSON schema: max_depth must be >= 1");
  // A separator is its punctuation, then spaces: anything else is not JSON.
  auto separator_ok = [](const std::string& s, char punctuation) {
    return !s.empty() && s[0] == punctuation && s.find_first_not_of(' ', 1) == std::string::npos;
  };
  if (!separator_ok(options.item_separator, ',') || !separator_ok(options.key_separator, ':')) {
    return InvalidArgumentError("JSON schema: separators must be ',' and ':', each followed by spaces only");
  }
  return Status::Ok();
}

}  // namespace

StatusOr<Grammar> JsonSchemaToGrammar(std::string_view schema_json, const JsonSchemaOptions& options) {
  PAGODA_RETURN_IF_ERROR(CheckOptions(options));
  PAGODA_ASSIGN_OR_RETURN(const Json schema, ParseSchemaText(schema_json, options.max_depth));
  GrammarBuilder builder;
  PAGODA_RETURN_IF_ERROR(JsonSchemaConverter(schema, options, &builder).ConvertRoot());
  builder.SetUnsatisfiableMessage(
      "JSON schema: no finite JSON value satisfies the schema (a required property or item recurses without end)");
  return builder.Build("root", options.limits);
}

StatusOr<Grammar> AnyJsonGrammar(const JsonSchemaOptions& options) {
  PAGODA_RETURN_IF_ERROR(CheckOptions(options));
  GrammarBuilder builder;
  JsonGrammarPrimitives json(&builder, options.layout());
  builder.Define("root", json.AnyObject());
  return builder.Build("root", options.limits);
}

}  // namespace pagoda::structured
