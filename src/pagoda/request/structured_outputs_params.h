// StructuredOutputsParams: a constraint on a request's output, with vLLM's
// field names (vllm.sampling_params.StructuredOutputsParams). Plain data:
// the engine compiles it into a grammar (structured/).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "pagoda/base/status.h"

namespace pagoda {

struct StructuredOutputsParams {
  // Exactly one of these is the constraint.
  std::optional<std::string> json;                  // a JSON Schema, as JSON text
  std::optional<std::string> regex;                 // the output matches it in full
  std::optional<std::vector<std::string>> choice;   // the output is one of them
  std::optional<std::string> grammar;               // EBNF: GBNF or Lark
  std::optional<bool> json_object;                  // any JSON object
  std::optional<std::string> structural_tag;        // refused: not supported

  // JSON output: no whitespace beyond the separators. Pagoda's JSON is
  // compact by default, so this changes nothing; it is accepted as vLLM's.
  bool disable_any_whitespace = false;
  // JSON Schema: objects without "additionalProperties" take no others.
  bool disable_additional_properties = false;
  // vLLM falls back between grammar backends; Pagoda has one, so there is
  // never a fallback to disable.
  bool disable_fallback = false;
  // JSON output: the whitespace allowed between tokens, as a regex.
  std::optional<std::string> whitespace_pattern;

  // How many constraints are set (json_object counts when set, even false,
  // as vLLM counts it).
  int NumConstraints() const;
  // Exactly one constraint, and each well formed (a non-empty choice, ...);
  // the message names the field.
  Status Validate() const;
};

}  // namespace pagoda
