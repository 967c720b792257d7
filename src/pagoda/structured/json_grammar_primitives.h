// The pieces of JSON text every JSON grammar shares, as rules of one
// GrammarBuilder: whitespace between tokens, strings, numbers, literals,
// any value, and the layout of objects and arrays. Each rule is defined
// the first time it is used, under a name that starts with "json_" (the
// schema converter never makes such names).
//
// Layout: whitespace may follow '{', '[', ':' and ',' and precede ':' ',' '}'
// and ']', never before or after the top-level value. Each gap is one run
// of at most `max_whitespace` bytes of ' ', '\n' and '\t' (the bytes
// xgrammar allows), or any run when it is kUnbounded; 0 gives compact JSON.
// A layout may instead give the gap as an expression (a client's
// whitespace pattern), and the separators may carry their own spaces
// (xgrammar's `separators`: ", " and ": " is its compact layout).
#pragma once

#include <set>
#include <string>
#include <vector>

#include "pagoda/structured/expr.h"
#include "pagoda/structured/grammar_builder.h"

namespace pagoda::structured {

struct JsonLayout {
  int max_whitespace = 16;      // bytes per gap; Expr::kUnbounded: any run
  ExprPtr whitespace;           // set: each gap is this instead
  std::string item_separator = ",";
  std::string key_separator = ":";
};

class JsonGrammarPrimitives {
 public:
  static constexpr int kUnbounded = Expr::kUnbounded;

  // `builder` must outlive this object.
  JsonGrammarPrimitives(GrammarBuilder* builder, JsonLayout layout);

  // One gap of whitespace (empty when max_whitespace is 0).
  ExprPtr Ws();
  // Any JSON string, quotes included.
  ExprPtr String();
  // Any run of string characters (what lies between the quotes).
  ExprPtr StringChars();
  // One string character.
  ExprPtr StringChar();
  // JSON numbers, exactly RFC 8259's grammar.
  ExprPtr Number();
  // JSON numbers without fraction or exponent ("-0" included).
  ExprPtr Integer();
  ExprPtr Boolean();
  ExprPtr Null();
  // Any JSON value, object, array.
  ExprPtr AnyValue();
  ExprPtr AnyObject();
  ExprPtr AnyArray();

  // Object layout: '{' ws members '}', each member "key ws : ws value ws",
  // members after the first preceded by "," ws.
  ExprPtr ObjectOpen();
  ExprPtr Member(ExprPtr key, ExprPtr value);
  // Array layout: '[' ws elements ']', each element "value ws", elements
  // after the first preceded by "," ws.
  ExprPtr ArrayOpen();
  ExprPtr Element(ExprPtr value);
  // "," ws, between members or elements.
  ExprPtr Comma();
  // The whole list of `items` (each a Member or an Element) in order:
  // item ("," ws item)*, or "" when empty.
  ExprPtr CommaList(const std::vector<ExprPtr>& items);

 private:
  // RuleRef(name), defining the rule with `make()` the first time.
  template <typename Make>
  ExprPtr Shared(const std::string& name, Make make);

  GrammarBuilder* builder_;
  JsonLayout layout_;
  std::set<std::string> defining_;
};

}  // namespace pagoda::structured
