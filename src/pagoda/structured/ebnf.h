// EBNF grammars, as vLLM's `structured_outputs.grammar` (`guided_grammar`)
// passes them to xgrammar: the GBNF dialect of llama.cpp, with xgrammar's
// reading of it.
//
//   root   ::= value ("," value)*     # a rule; comments run to the line's end
//   value  ::= [0-9]+ | "\"" [^"\n]* "\"" | "(" root ")"
//
// - Rules `name ::= expr`; names are letters, digits, `_` and `-`, not
//   starting with a digit, and each rule's name begins its line. Matching
//   starts at `root` (EbnfOptions::root_rule). Rules may be used before they
//   are defined; whitespace and newlines between elements are free.
// - `a b` sequence, `a | b` alternation, `( ... )` grouping (`()` is the
//   empty string), quantifiers `*`, `+`, `?`, `{m}`, `{m,}` and `{m,n}`.
// - "..." string literals and [...] / [^...] classes over code points, with
//   the escapes \n \t \r \\ \" \' \? \/ \a \b \f \v \0 \e, \x followed by
//   hex digits, \uHHHH and \UHHHHHHHH (classes also take \] \[ \- \^ and the
//   other regex metacharacters); `[^]` is any code point, and so is `.`.
// - Text is matched as UTF-8 bytes.
//
// Everything else is refused with INVALID_ARGUMENT whose message names the
// line and column (columns count code points): syntax errors, undefined and
// twice-defined rules, a missing root, unbalanced brackets, bad escapes,
// invalid UTF-8, surrogates, classes that match nothing, repeat counts over
// EbnfOptions::max_repeat, nesting over max_nesting, left recursion that is
// not direct (GrammarBuilder), grammars over the size limits, xgrammar's
// extensions (macros such as TagDispatch(...) and Regex(...), lookahead
// assertions `(= ...)`, rule options `name[...]`), and Lark rules and
// directives (`start: ...`, `%import`): a Lark grammar goes to LarkToGrammar
// (lark.h; GrammarFromText in grammar_text.h picks the dialect).
#pragma once

#include <string>
#include <string_view>

#include "pagoda/base/status.h"
#include "pagoda/structured/grammar.h"
#include "pagoda/structured/grammar_builder.h"

namespace pagoda::structured {

struct EbnfOptions {
  // The rule where matching starts.
  std::string root_rule = "root";
  // The largest count allowed in `{m}`, `{m,}` and `{m,n}`.
  int max_repeat = 10000;
  // Parentheses nested deeper than this are refused.
  int max_nesting = 256;
  GrammarLimits limits;
};

StatusOr<Grammar> EbnfToGrammar(std::string_view text, const EbnfOptions& options = {});

}  // namespace pagoda::structured
