// Grammar expressions over bytes: what the constraint front ends (JSON
// Schema, regex, EBNF, choice) produce, and GrammarBuilder lowers into a
// Grammar. Expressions are immutable and shared.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "pagoda/structured/byte_set.h"
#include "pagoda/structured/utf8_ranges.h"

namespace pagoda::structured {

struct Expr;
using ExprPtr = std::shared_ptr<const Expr>;

struct Expr {
  enum class Kind {
    kBytes,     // one byte of `bytes`
    kSequence,  // `children` one after another; empty: the empty string
    kChoice,    // one of `children`; empty: matches nothing
    kRepeat,    // `children[0]` from `min` to `max` times (kUnbounded: no limit)
    kRule,      // the rule named `rule`
  };
  static constexpr int kUnbounded = -1;

  Kind kind = Kind::kSequence;
  ByteSet bytes;
  std::vector<ExprPtr> children;
  int min = 0;
  int max = 0;
  std::string rule;
};

ExprPtr Bytes(const ByteSet& bytes);
ExprPtr Byte(uint8_t byte);
// The bytes of `text`, in order.
ExprPtr Literal(std::string_view text);
ExprPtr Sequence(std::vector<ExprPtr> children);
ExprPtr Choice(std::vector<ExprPtr> children);
ExprPtr Repeat(ExprPtr child, int min, int max);
ExprPtr Optional(ExprPtr child);
ExprPtr Star(ExprPtr child);
ExprPtr Plus(ExprPtr child);
ExprPtr RuleRef(std::string name);
// The empty string.
ExprPtr Empty();
// One code point of `ranges`, as its UTF-8 bytes.
ExprPtr CodePoints(const CodePointRanges& ranges);
// One code point outside `ranges`.
ExprPtr CodePointsExcept(const CodePointRanges& ranges);
// Any one code point.
ExprPtr AnyCodePoint();

}  // namespace pagoda::structured
