// The syntax half of LarkToGrammar (lark.h): reads the tokens (lark_lexer.h)
// into rule and terminal definitions whose bodies are expressions, with the
// imports and %ignore lines, and records where every name is defined and
// used so that the lowering (lark.cc) can name line and column in its
// refusals. Names are not resolved here.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "pagoda/base/status.h"
#include "pagoda/structured/expr.h"
#include "pagoda/structured/lark.h"
#include "pagoda/structured/lark_lexer.h"

namespace pagoda::structured {

// The rule that a rule's terminals are read through when the grammar has
// %ignore lines: any run of the ignored terminals (lark.cc defines it).
inline constexpr std::string_view kLarkIgnoreRule = "%ignore";

struct LarkDefinition {
  std::string name;
  bool terminal = false;  // an uppercase NAME: ...
  LarkPosition position;  // of the name
  // With %ignore lines, every terminal a rule reads (a name, a string, a
  // range or a regular expression) is preceded by the ignore rule here.
  ExprPtr body;
};

struct LarkReference {
  std::string name;
  LarkPosition position;
  // The definition the name is used in (an index into definitions), or -1
  // for an %ignore line.
  int user = -1;
};

// A terminal written in place, in a rule or an %ignore line: strings and
// regular expressions (Lark refuses those that match the empty string).
struct LarkAnonymousTerminal {
  std::string spelling;
  LarkPosition position;
  ExprPtr expr;
};

struct LarkImport {
  std::string name;  // in common.lark
  std::string as;    // the name it is defined under here
  LarkPosition position;
};

struct LarkIgnore {
  LarkPosition position;
  ExprPtr expr;  // a terminal expression
};

struct LarkSyntax {
  std::vector<LarkDefinition> definitions;  // in the order of the text
  std::vector<LarkReference> references;    // every use of a name, in order
  std::vector<LarkAnonymousTerminal> anonymous;
  std::vector<LarkImport> imports;
  std::vector<LarkIgnore> ignores;
};

// Refuses what is malformed on its own: syntax, escapes, ranges, regular
// expressions, repeat counts, nesting, and the constructs that are not
// supported (templates, %declare, %override, %extend, imports other than
// common's terminals).
StatusOr<LarkSyntax> ParseLark(std::string_view text, const LarkOptions& options);

}  // namespace pagoda::structured
