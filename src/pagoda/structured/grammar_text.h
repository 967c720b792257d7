// The `grammar` kind of structured outputs (vLLM's
// `structured_outputs.grammar`, `guided_grammar`) in either dialect that
// vLLM takes: GBNF (ebnf.h) or Lark (lark.h). As vLLM does, a grammar is
// read as Lark when no line defines a GBNF rule ('::=') and, here, some
// line defines a Lark one ('name:', '?name:', '!name:', maybe with a
// priority '.N' or template parameters); everything else is read as GBNF,
// whose parser refuses Lark rules mixed into GBNF with a message saying so.
#pragma once

#include <string_view>

#include "pagoda/base/status.h"
#include "pagoda/structured/grammar.h"

namespace pagoda::structured {

enum class GrammarDialect { kGbnf, kLark };

// '::=' outside strings and comments makes GBNF; a line that begins a
// Lark definition, without any '::=', makes Lark; nothing of either: GBNF.
GrammarDialect DetectGrammarDialect(std::string_view text);

// EbnfToGrammar or LarkToGrammar, with default options, by the dialect.
StatusOr<Grammar> GrammarFromText(std::string_view text);

}  // namespace pagoda::structured
