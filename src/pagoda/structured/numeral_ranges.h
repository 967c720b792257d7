// Numerals whose value lies in a range, as grammar expressions: canonical
// JSON integers between two bounds (JSON Schema's minimum and maximum), and
// fixed-width hexadecimal numbers (the four digits of a \uXXXX escape).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "pagoda/structured/expr.h"

namespace pagoda::structured {

enum class Radix {
  kDecimal,  // 0-9
  kHex,      // 0-9, a-f and A-F
};

// The numerals of exactly `width` digits (leading zeros included) whose
// value lies in [lo, hi]; lo <= hi < radix^width.
ExprPtr FixedWidthNumerals(uint64_t lo, uint64_t hi, int width, Radix radix);

// JSON integers (no leading zeros; "-0" beside "0") whose value lies in
// [lo, hi]; nullopt leaves that side unbounded. Nothing matches when lo > hi.
ExprPtr IntegerRange(std::optional<int64_t> lo, std::optional<int64_t> hi);

// Canonical decimal numerals (no leading zeros) whose value lies in
// [lo, hi], given as canonical numerals of any length; no hi: unbounded.
ExprPtr CanonicalNumeralsBetween(const std::string& lo, const std::optional<std::string>& hi);

}  // namespace pagoda::structured
