// Bounds on JSON numbers that may have a fraction (JSON Schema's minimum,
// maximum and their exclusive forms on "type": "number"), as the plain
// decimals "-?(0|[1-9][0-9]*).[0-9]+" whose value lies in a range.
//
// Validators compare such a number as a double (Python's json reads it as a
// float), so a bound B is turned into decimal thresholds that make every
// accepted text validate: rounding to double is monotone, so a decimal
// x >= S, with S the shortest decimal that reads back as B, reads back as
// at least B. Exclusive bounds take the neighbouring double instead
// (x >= shortest(next(B)) reads back above B). Only the texts between a
// threshold and the next double's rounding boundary are left out.
#pragma once

#include <optional>
#include <string>

#include "pagoda/structured/expr.h"

namespace pagoda::structured {

// A decimal number exactly: canonical integer digits ("0" for zero) and
// fraction digits without trailing zeros; zero is never negative.
struct ExactDecimal {
  bool negative = false;
  std::string integer = "0";
  std::string fraction;
};

// -1, 0, 1 as a <, =, > b.
int Compare(const ExactDecimal& a, const ExactDecimal& b);

// The shortest decimal that reads back as `value`; nullopt when not finite.
std::optional<ExactDecimal> ShortestDecimal(double value);

// `value` rounded to at most `digits` fraction digits, up (toward +inf) or
// down: keeps the thresholds' chains of digits short.
ExactDecimal RoundFraction(ExactDecimal value, size_t digits, bool up);

// The lower (exclusive: false, true) and upper thresholds of a bound on a
// double, as above; nullopt when no finite decimal lies beyond it.
std::optional<ExactDecimal> LowerThreshold(double bound, bool exclusive);
std::optional<ExactDecimal> UpperThreshold(double bound, bool exclusive);

// Plain decimals with a fraction ("1.50", "-0.0") whose exact value lies in
// [lo, hi]; nullopt leaves that side unbounded.
ExprPtr FractionNumeralsBetween(const std::optional<ExactDecimal>& lo, const std::optional<ExactDecimal>& hi);

}  // namespace pagoda::structured
