// Lark grammars, as vLLM's `structured_outputs.grammar` (`guided_grammar`)
// takes them besides GBNF (grammar_text.h tells the two apart):
//
//   start: pair ("," pair)*          // a rule; comments run to the line's end
//   ?pair: KEY "=" value             // '?' (inline) and '!' change nothing here
//   value: SIGNED_NUMBER | ESCAPED_STRING | "true"i
//        | "[" [value ("," value)*] "]"
//   KEY: /[a-z_]+/                   // a terminal: uppercase, no rules inside
//   %import common.SIGNED_NUMBER
//   %import common (ESCAPED_STRING, WS)
//   %ignore WS
//
// - Rules `name: expr` (lowercase names, with the modifiers `?` and `!`)
//   and terminals `NAME: expr` (uppercase; terminals may use terminals, not
//   rules, and may not recurse); one definition per line, continued on lines
//   that begin with `|`, or after a backslash at a line's end. Matching
//   starts at `start` (LarkOptions::start).
// - `a b` sequence, `a | b` alternation (an empty alternative is the empty
//   string), `( )` grouping, `[ ]` optional, `*` `+` `?`, `~ n` and
//   `~ n..m` repeats.
// - "..." strings with Lark's escapes and the `i` flag, "a".."z" ranges,
//   /.../ regular expressions with the flags `s`, `m` and `u`
//   (lark_literal.h, lark_regex.h).
// - `%import common.NAME`, `%import common.NAME -> OTHER` and
//   `%import common (A, B)` for common.lark's terminals (lark_common.h).
// - `%ignore X` (a terminal name, string, regular expression or any
//   terminal expression; several lines add up): the ignored terminals may
//   stand, any number of times, before every terminal that a rule reads and
//   after the text's last one, as with Lark's Earley parser, never inside a
//   terminal.
// - Accepted and ignored, since they do not change which texts match:
//   rule and terminal priorities `name.2:`, aliases `-> name`, and the rule
//   modifiers `?` and `!`.
// - Text is matched as UTF-8 bytes; every terminal matches the strings of
//   its regular language.
//
// Refused with INVALID_ARGUMENT whose message names the line and column
// (columns count code points) and the construct: syntax errors, undefined
// and twice-defined names (even unused ones, as Lark), rules inside
// terminals, recursive terminals, terminals that match the empty string
// (Lark's Earley parser refuses them), a missing start rule, templates
// `name{x}`, `%declare`, `%override`, `%extend`, imports other than
// common's terminals, the regex flags `i`, `x` and `l`, anchors and lazy
// quantifiers in regular expressions, a case-insensitive string with a
// non-ASCII character, repeat counts over LarkOptions::max_repeat, nesting
// over max_nesting, chains of terminals using terminals longer than
// max_terminal_depth, left recursion that is not direct (GrammarBuilder),
// and grammars over the size limits.
//
// Departures from Lark: Lark's dynamic lexer takes one match per terminal
// at each position, the first (longest for greedy patterns), so where a
// terminal could stop early and the next one start (`INT INT` on "12"),
// or an ignored run could leave its last spaces to the next terminal,
// Lark refuses splits that this grammar accepts; `\d` `\w` `\s` in regular
// expressions are ASCII (Lark's, Python's re on text, are Unicode).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "pagoda/base/status.h"
#include "pagoda/structured/grammar.h"
#include "pagoda/structured/grammar_builder.h"
#include "pagoda/structured/regex_to_expr.h"

namespace pagoda::structured {

struct LarkOptions {
  // The rule where matching starts.
  std::string start = "start";
  // The largest count allowed in `~ n` and `~ n..m`.
  int max_repeat = 10000;
  // Groups and optionals nested deeper than this are refused.
  int max_nesting = 256;
  // Terminals using terminals using ... in chains longer than this are
  // refused (a chain of 2 is a terminal that uses another).
  size_t max_terminal_depth = 1000;
  RegexLimits regex;
  GrammarLimits limits;
};

StatusOr<Grammar> LarkToGrammar(std::string_view text, const LarkOptions& options = {});

}  // namespace pagoda::structured
