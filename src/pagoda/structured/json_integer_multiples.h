// JSON integers divisible by k within a range (JSON Schema's multipleOf
// beside minimum/maximum), as grammar rules.
//
// A range with few multiples is their list. Otherwise the numerals are
// read by a remainder automaton: after digits d1..dn the state is
// (d1..dn mod k), and a numeral ends only in state 0. The range's own
// digit-by-digit comparison (numeral_ranges.h) runs beside it: along a
// bound's digits the remainder is fixed, and each free suffix of n digits
// that must take remainder r to 0 is one shared rule, so a range costs at
// most (digits x k) rules of ten alternatives.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "pagoda/base/status.h"
#include "pagoda/structured/expr.h"
#include "pagoda/structured/grammar_builder.h"

namespace pagoda::structured {

struct IntegerMultiplesLimits {
  // Ranges with at most this many multiples are listed, whatever k.
  uint64_t max_listed = 1024;
  // Otherwise the automaton has k states; larger k are refused.
  uint64_t max_divisor = 1000;
};

// The canonical JSON integers ("-0" beside "0") in [lo, hi] (nullopt: that
// side unbounded) divisible by `divisor` >= 1. Rules are defined in
// `builder` under names from `new_rule_name(hint)`. INVALID_ARGUMENT,
// naming "multipleOf" and the limit, when the automaton would exceed
// `limits`.
StatusOr<ExprPtr> IntegerMultiples(uint64_t divisor, std::optional<int64_t> lo, std::optional<int64_t> hi,
                                   GrammarBuilder* builder,
                                   const std::function<std::string(const std::string&)>& new_rule_name,
                                   const IntegerMultiplesLimits& limits = {});

}  // namespace pagoda::structured
