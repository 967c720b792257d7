// A context-free grammar over bytes in plain BNF: every rule is a list of
// alternatives, every alternative a sequence of symbols, every symbol a byte
// set or a rule. GrammarBuilder makes these from expressions; the matcher
// runs them. Built grammars have no left recursion.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "pagoda/structured/byte_set.h"

namespace pagoda::structured {

// A rule (value >= 0: its index) or a byte set (value < 0: ~index).
class Symbol {
 public:
  static Symbol Rule(int32_t rule) { return Symbol(rule); }
  static Symbol Bytes(int32_t byte_set) { return Symbol(~byte_set); }

  bool is_rule() const { return value_ >= 0; }
  int32_t rule() const { return value_; }
  int32_t byte_set() const { return ~value_; }

  friend bool operator==(Symbol, Symbol) = default;

 private:
  explicit Symbol(int32_t value) : value_(value) {}
  int32_t value_;
};

struct Grammar {
  using Alternative = std::vector<Symbol>;
  struct Rule {
    std::string name;
    std::vector<Alternative> alternatives;
  };

  std::vector<Rule> rules;
  std::vector<ByteSet> byte_sets;
  int32_t root = 0;

  // Symbols over all alternatives: the grammar's size.
  size_t NumSymbols() const;
  // The rules in an EBNF-like notation ("name ::= [a-z] other | ..."), for
  // messages and tests.
  std::string ToString() const;
};

}  // namespace pagoda::structured
