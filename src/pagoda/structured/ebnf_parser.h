// The syntax half of EbnfToGrammar (ebnf.h): reads the text into rules whose
// bodies are expressions, and records where every rule is defined and used so
// that the lowering can name line and column in its refusals.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "pagoda/base/status.h"
#include "pagoda/structured/ebnf.h"
#include "pagoda/structured/expr.h"

namespace pagoda::structured {

// 1-based; columns count code points.
struct EbnfPosition {
  int line = 1;
  int column = 1;
};

// INVALID_ARGUMENT "ebnf: line L, column C: what".
Status EbnfError(EbnfPosition position, const std::string& what);

struct EbnfRule {
  std::string name;
  EbnfPosition position;  // of the name
  ExprPtr body;
};

struct EbnfReference {
  std::string name;
  EbnfPosition position;
};

struct EbnfSyntax {
  std::vector<EbnfRule> rules;            // in the order of the text
  std::vector<EbnfReference> references;  // every use of a rule name, in order
};

// Refuses what is malformed on its own (syntax, escapes, UTF-8, classes,
// repeat counts, nesting, xgrammar extensions, Lark); names are not resolved.
StatusOr<EbnfSyntax> ParseEbnf(std::string_view text, const EbnfOptions& options);

}  // namespace pagoda::structured
